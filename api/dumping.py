"""The one kind of response schema: every JSON answer of the API leaves through a :class:`ViewSchema`.

A view returns JSON values already (``api.views``, ``api.context``): ints, texts,
lists and objects. marshmallow's own ``dump`` formats every field again: about
60 µs for one game state, ten times what building its view costs, and a replay
answers a state a step (the longest replay the bounds allow, 961 steps, takes
77 ms to dump so, 4 ms through this one); and it would fail on an event row
changed outside the ledger (a text where a number belongs), which the log's
pages must show as it stands. :class:`ViewSchema` keeps the schema as the one
declaration of an answer's shape — the OpenAPI document is made from it, and the
answer holds exactly its declared fields — and dumps a view by taking those
fields from it, nested schemas and lists included, without formatting again what
is already a JSON value (a float field still makes a float of a whole number, as
marshmallow's does); a view that holds only declared fields is its own dump,
given back as it is, never copied nor changed.

    >>> from marshmallow import fields
    >>> class Seat(ViewSchema):
    ...     seat = fields.Integer()
    ...     name = fields.String()
    ...     mean = fields.Float()
    >>> Seat().dump({"seat": 1, "name": "Ben", "mean": 66, "cards": ["7D"]})
    {'seat': 1, 'name': 'Ben', 'mean': 66.0}
    >>> Seat(many=True).dump([{"seat": 0, "name": "Ana"}])
    [{'seat': 0, 'name': 'Ana'}]

Where a schema does more than declare JSON values (a hook, a date to format, a
field computed by a method, a default, a value that is not a mapping), its dump
is marshmallow's own: the fast dump is the same answer, never another one
(tests/api/test_dumping.py holds the two equal on every kind of game state;
tests/api/test_answers_declared.py holds every route to a ViewSchema and every
answer written a part at a time to the fields its view built).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import Schema, fields
from marshmallow.utils import missing

Dump = Callable[[Any], Any]



class Number(fields.Number[float]):
    """A number sent as it is: a whole number stays one (12, not 12.0), a fraction stays a fraction; ``number``
    in the OpenAPI document."""

    num_type = float

    def _format_num(self, value: Any) -> Any:
        return value


# Fields whose dump of a JSON value is that value: marshmallow formats them again (int(), str()) to the same. A
# float field makes a float of a whole number, as marshmallow's does (66 is sent as 66.0).
_PLAIN = (fields.Integer, Number, fields.String, fields.Boolean, fields.Raw)


class ViewSchema(Schema):
    """A response schema: its fields are the answer's; :meth:`dump` takes them from a view's mapping."""

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        plan = _plan_of(self)
        if plan is None:
            return super().dump(obj, many=many)
        if self.many if many is None else many:
            values = list(obj)
            if all(isinstance(value, Mapping) for value in values):
                return [plan(value) for value in values]
        elif isinstance(obj, Mapping):
            return plan(obj)
        return super().dump(obj, many=many)


def _plan_of(schema: Schema) -> Dump | None:
    """The schema's plan, made at its first dump (a schema's fields are bound once it is built)."""
    if "_view_plan" not in schema.__dict__:
        schema.__dict__["_view_plan"] = (_schema_plan(schema),)
    plan: tuple[Dump | None] = schema.__dict__["_view_plan"]
    return plan[0]


class _NotPlain(Exception):
    """A field whose dump marshmallow must make itself."""


def _schema_plan(schema: Schema) -> Dump | None:
    """The dump of a mapping onto ``schema``'s dumped fields, or None when marshmallow's own is needed."""
    try:
        return _mapping_dump(schema)
    except _NotPlain:
        return None


def _mapping_dump(schema: Schema) -> Dump:
    """The dump of a mapping onto ``schema``: a view holding only declared fields, none of them to convert, is its
    own dump (the same object: nothing is copied); else the declared fields are taken from it."""
    if any(schema._hooks.get(name) for name in ("pre_dump", "post_dump")):
        raise _NotPlain
    steps: list[tuple[str, str, Dump | None]] = []
    for name, field in schema.dump_fields.items():
        if field.dump_default is not missing:
            raise _NotPlain
        steps.append((field.attribute or name, field.data_key or name, _field_plan(field)))
    plan = tuple(steps)
    declared = frozenset(source for source, key, _ in plan if source == key)
    converted = tuple((key, convert) for source, key, convert in plan if convert is not None)
    exact = len(declared) == len(plan)  # no field renamed on the way out

    def dump(view: Mapping[str, Any]) -> Mapping[str, Any]:
        if exact and type(view) is dict and view.keys() <= declared:
            out: dict[str, Any] | None = None
            for key, convert in converted:
                value = view.get(key)
                if value is not None and (made := convert(value)) is not value:
                    out = dict(view) if out is None else out
                    out[key] = made
            return view if out is None else out
        built: dict[str, Any] = {}
        for source, key, change in plan:
            if source in view:
                value = view[source]
                built[key] = value if change is None or value is None else change(value)
        return built

    return dump


def _field_plan(field: fields.Field) -> Dump | None:
    """How a field dumps a JSON value: None (as it is) or a function, which gives back the value itself when it
    is its own dump (:class:`_NotPlain` when marshmallow's own formatting is needed)."""
    if isinstance(field, fields.Nested):
        nested = field.schema
        plan = _mapping_dump(nested)
        return _each(plan) if nested.many else plan
    if isinstance(field, fields.List):
        inner = _field_plan(field.inner)
        return None if inner is None else _each(inner)  # a list of JSON values is its own dump
    if isinstance(field, fields.Dict):
        if field.key_field is None and field.value_field is None:
            return None
        for part in (field.key_field, field.value_field):
            if part is not None and _field_plan(part) is not None:
                raise _NotPlain
        return _as_dict
    if isinstance(field, fields.Float):
        return _as_float
    if isinstance(field, _PLAIN):
        return None
    raise _NotPlain


def _as_dict(values: Any) -> dict[Any, Any]:
    return values if type(values) is dict else dict(values)


def _as_float(value: Any) -> float:
    return value if type(value) is float else float(value)


def _each(convert: Dump) -> Dump:
    """The dump of a list whose items ``convert`` dumps: the list itself when every item is its own dump."""

    def dump(values: Any) -> list[Any]:
        if type(values) is list:
            for value in values:
                if value is not None and convert(value) is not value:
                    break
            else:
                return values
        return [None if value is None else convert(value) for value in values]

    return dump
