// The installation page of the club's certificate (HTTPS on a room's network, api/lan.py): the steps are the
// page itself; the script only sets up the header (its language switch).

import { setupHeader } from "./common.js";

setupHeader();
