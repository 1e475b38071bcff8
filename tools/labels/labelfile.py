"""What the label tools share: reading label files (plain or gzip) and Position IDs."""
import base64
import binascii
import gzip
import sys


def fail(msg):
    sys.exit(f"{sys.argv[0]}: {msg}")


def lines(path):
    """(line number, text) of a plain or gzip file; exits with a message if it cannot be read."""
    try:
        with open(path, "rb") as f:
            compressed = f.read(2) == b"\x1f\x8b"
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    opener = gzip.open if compressed else open
    with opener(path, "rt") as f:
        yield from enumerate(f, start=1)


def body(path, header):
    """The labels and chunk marks (`# games N`) of `path`; its other comments (the header,
    which may be several lines in a file a tool wrote) go to `header`."""
    for n, line in lines(path):
        if line.startswith("#") and not line.startswith("# games "):
            header.append(line)
            continue
        yield n, line


def chunk_games(line, where):
    """The game count of a chunk mark `# games N`; exits naming `where` if N is not a count."""
    try:
        return int(line.split()[2])
    except (IndexError, ValueError):
        fail(f"{where}: {line.strip()!r} is not a chunk mark '# games N'")


def equity(p):
    """Cubeless money equity of five probabilities (win, win-g, win-bg, lose-g, lose-bg)."""
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = p
    return 2 * win - 1 + win_gammon - lose_gammon + win_backgammon - lose_backgammon


def sides(pid, where):
    """The two sides' checkers of a gnubg Position ID: (opponent, side on roll), each 25
    counts (points 1 to 24 from that side, then the bar). Exits naming `where` if it is not one."""
    try:
        key = base64.b64decode(pid + "==", validate=True)
    except (binascii.Error, ValueError):
        fail(f"{where}: {pid!r} is not a Position ID")
    if len(key) != 10:
        fail(f"{where}: {pid!r} is not a Position ID")
    bits = [(key[i // 8] >> (i % 8)) & 1 for i in range(80)]
    out, i = [[0] * 25, [0] * 25], 0
    for side in out:
        point = 0
        while point < 25 and i < 80:
            if bits[i]:
                side[point] += 1
            else:
                point += 1
            i += 1
    return out


def pips(side):
    return sum((i + 1) * c for i, c in enumerate(side))
