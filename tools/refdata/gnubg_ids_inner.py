# gnubg_ids_inner.py -- runs INSIDE gnubg's embedded Python
# (gnubg -t -q -r -p gnubg_ids_inner.py), started by make-refdata.
#
# Reads JSON {"items": [{"posid": ID, "board": [[25 ints], [25 ints]]}, ...]}
# from the file named by $REFDATA_IN and writes one JSON line per item to
# $REFDATA_OUT:  {"posid", "board_from_id": gnubg.positionfromid(posid),
# "id_from_board": gnubg.positionid(board)}, so the Position ID codec facts
# in gnubg-ids.txt come from gnubg itself, not from a Python re-implementation.
# Finally writes "$REFDATA_OUT.status" ({"ok": true} or the traceback).
import json
import os
import traceback

import gnubg  # only available inside gnubg

status = {"ok": False}
try:
    with open(os.environ["REFDATA_IN"]) as f:
        items = json.load(f)["items"]
    with open(os.environ["REFDATA_OUT"], "w") as out:
        for it in items:
            b = gnubg.positionfromid(it["posid"])
            rec = {"posid": it["posid"],
                   "board_from_id": [list(b[0]), list(b[1])],
                   "id_from_board": gnubg.positionid([list(it["board"][0]), list(it["board"][1])])}
            out.write(json.dumps(rec, separators=(",", ":")) + "\n")
    status = {"ok": True}
except BaseException:
    status = {"ok": False, "error": traceback.format_exc()}
with open(os.environ["REFDATA_OUT"] + ".status", "w") as f:
    json.dump(status, f)
