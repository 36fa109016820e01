#!/usr/bin/env bash
# Record a complete deal over HTTP, replay it and audit it (the README's walk-through).
# Needs a running server (`make run`) and its admin token: ADMIN=$(cat instance/admin-token) docs/walkthrough.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:5000/api/v1}
ADMIN=${ADMIN:?set ADMIN to the admin token (instance/admin-token)}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {'d': d}))" "$1"; }

# 1. A club, with its first scorer token.
CLUB_JSON=$(curl -sf -X POST "$BASE/clubs" -H "Authorization: Bearer $ADMIN" \
  -H 'Content-Type: application/json' -d '{"name": "Cercle du Nain Jaune"}')
CLUB=$(echo "$CLUB_JSON" | json 'd["id"]'); TOKEN=$(echo "$CLUB_JSON" | json 'd["token"]')
AUTH="Authorization: Bearer $TOKEN"

# 2. A game for eight players, classic rules, 200 chips each (Hugo, seat 7, deals first).
GAME=$(curl -sf -X POST "$BASE/clubs/$CLUB/games" -H "$AUTH" -H 'Content-Type: application/json' -d '{
  "players": ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo"],
  "rules": "classic", "starting_chips": 200}' | json 'd["id"]')

# 3. The deal, with the hands (so every play is checked) — everyone stakes 15 chips on the board.
curl -sf -X POST "$BASE/games/$GAME/actions" -H "$AUTH" -H 'Content-Type: application/json' \
  -H 'If-Match: "1"' -H "Idempotency-Key: $(python3 -c 'import uuid; print(uuid.uuid4())')" -d '{"actions": [
  {"type": "deal", "hands": [
    ["AH","2C","3D","7S","8S","9S"], ["4H","5H","6H","KS","KC","KD"], ["AC","3C","4C","5C","6C","8C"],
    ["9C","10C","JC","QC","AD","2D"], ["4D","5D","6D","8D","9D","10D"], ["JD","QD","2H","3H","8H","9H"],
    ["10H","JH","KH","AS","2S","3S"], ["4S","5S","6S","10S","JS","QS"]]}]}' | json 'd["state"]["board"]'

# 4. Ana: "As, 2, 3, sans 4". Ben: "4, 5, 6, sans 7".
curl -sf -X POST "$BASE/games/$GAME/actions" -H "$AUTH" -H 'Content-Type: application/json' -d '{"actions": [
  {"type": "play", "seat": 0, "cards": ["AH", "2C", "3D"]},
  {"type": "play", "seat": 1, "cards": ["4H", "5H", "6H"]}]}' | json 'd["state"]["deal"]["expected"]'

# 5. An illegal action is refused with a code and a sentence, and nothing is stored.
curl -s -X POST "$BASE/games/$GAME/actions" -H "$AUTH" -H 'Content-Type: application/json' \
  -d '{"actions": [{"type": "play", "seat": 2, "cards": ["8C"]}]}' | json '(d["status"], d["code"], d["detail"])'

# 6. Nobody else has a 7: Ana lays 7♠ 8♠ 9♠ (the six passes in between are inferred) and goes out,
#    "J'arrête !": the losers pay their points, and those holding an honour are bête.
curl -sf -X POST "$BASE/games/$GAME/actions" -H "$AUTH" -H 'Content-Type: application/json' -d '{"actions": [
  {"type": "play", "seat": 0, "cards": ["7S", "8S", "9S"]}]}' \
  | json '(d["state"]["status"], [(p["name"], p["chips"]) for p in d["state"]["players"]], d["state"]["board"])'

# 7. Replay deal 1 step by step, then audit the whole game.
curl -sf "$BASE/games/$GAME/deals/1/replay" -H "$AUTH" | json 'len(d["steps"])'
curl -sf "$BASE/games/$GAME/audit" -H "$AUTH" \
  | json '(d["ok"], d["chain"], d["conservation"]["ok"], d["recomputation"]["ok"], len(d["transfers"]))'
