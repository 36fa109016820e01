"""Helpers shared by the test folders (importable as ``support`` thanks to pytest's ``pythonpath``)."""
