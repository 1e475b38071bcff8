# judge_inner.py -- runs INSIDE gnubg's embedded Python (gnubg -t -q -r -p judge_inner.py),
# started by make-judged-set.
#
# Reads JSON lines {"posid", "dice": [d1, d2], "class"} from $JUDGE_IN. For each position it
# lists every legal play with gnubg.hint() at 0-ply, then evaluates the position each of the
# best $JUDGE_TOP plays (by gnubg 0-ply) leaves, with the opponent on roll, cubeless at
# $JUDGE_PLIES plies. Writes one JSON line per position to $JUDGE_OUT:
#   {"posid", "dice", "class", "moves": [{"after": ID (opponent on roll), "eq0": E,
#    "eqN": E or absent}, ...]}
# equities for the mover, best first by eq0. Finally writes "$JUDGE_OUT.status".
import json
import os
import sys
import traceback

import gnubg  # only available inside gnubg

sys.path.insert(0, os.environ["GNUBG_TOOLS"])
import gnubglib as L  # noqa: E402

status = {"ok": False}
try:
    plies = int(os.environ.get("JUDGE_PLIES", "2"))
    top = int(os.environ.get("JUDGE_TOP", "16"))
    for c in ("set output output off", "set confirm new off", "set display off",
              "set automatic game off", "set player 0 human", "set player 1 human",
              "set jacoby off", "set evaluation chequerplay evaluation plies 0",
              "set evaluation chequerplay evaluation cubeful off", "set threads 1",
              "new session"):
        gnubg.command(c)
    ci = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
    ec = gnubg.evalcontext(0, plies, 1, 1, 0.0)
    n = 0
    with open(os.environ["JUDGE_IN"]) as f, open(os.environ["JUDGE_OUT"], "w") as out:
        for line in f:
            it = json.loads(line)
            posid, (d1, d2) = it["posid"], it["dice"]
            mid = L.encode_matchid(dice=(d1, d2), dice_owner=1, turn=1, jacoby=False)
            gnubg.command("set gnubgid %s:%s" % (posid, mid))
            if gnubg.positionid() != posid:
                raise ValueError("gnubg did not take position %s" % posid)
            board = L.posid_to_board(posid)
            moves = []
            for i, m in enumerate(gnubg.hint(100000)["hint"]):
                after = L.swap_sides(L.apply_move(board, gnubg.parsemove(m["move"])))
                rec = {"move": m["move"], "after": L.board_to_posid(after),
                       "eq0": round(m["equity"], 5)}
                if i < top:
                    if L.game_over(L.swap_sides(after)):
                        rec["eqN"] = rec["eq0"]
                    else:
                        r = gnubg.evaluate([list(after[0]), list(after[1])], ci, ec)
                        rec["eqN"] = round(-r[5], 5)
                moves.append(rec)
            out.write(json.dumps({"posid": posid, "dice": [d1, d2], "class": it["class"],
                                  "plies": plies, "moves": moves},
                                 separators=(",", ":")) + "\n")
            out.flush()
            n += 1
            if n % 200 == 0:
                gnubg.command("new session")
    status = {"ok": True, "positions": n}
except BaseException:
    status = {"ok": False, "error": traceback.format_exc()}
with open(os.environ["JUDGE_OUT"] + ".status", "w") as f:
    json.dump(status, f)
