#!/usr/bin/env python3
"""Ultimo's FEN in the position notation of nelhage/ultimattt, for the
solver comparison (docs/solver.md). Pure text conversion: nothing of
ultimattt is used or built here.

  ultimattt-notation.py FEN            prints the position in its notation
  ultimattt-notation.py --check FILE ULTIMO ULTIMATTT
      for each FEN of FILE (the first ';' field of a line) of a game not
      over, checks that
      both programs agree on the legal moves: the children ultimattt
      lists (`pp --children`) are exactly Ultimo's legal moves
      (`ULTIMO perft 1 --divide`) played on the FEN, converted here.

Ultimattt's notation: `<X|O>;<9 board states>;<9 boards of 9 cells>`,
boards and cells in reading order from the top-left; a board state is X
or O (won), # (full), . (open) or @ (the open board the side to move is
sent to); cells are X, O or '.'.
"""
import re, subprocess, sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

def grid_of(fen):
    """The 9x9 grid (row 0 = rank 9) of a FEN's first field."""
    rows = []
    for rank in fen.split()[0].split('/'):
        row = ''
        for ch in rank:
            row += '.' * int(ch) if ch.isdigit() else ch
        assert len(row) == 9, fen
        rows.append(row)
    assert len(rows) == 9, fen
    return rows

def square(move):
    """(col, row) of a move like e5."""
    return ord(move[0]) - ord('a'), 9 - int(move[1])

def board_cell(col, row):
    return 3 * (row // 3) + col // 3, 3 * (row % 3) + col % 3

def convert(fen):
    fields = fen.split()
    rows, side, last = grid_of(fen), fields[1], fields[3]
    boards = [['.'] * 9 for _ in range(9)]
    for row in range(9):
        for col in range(9):
            b, c = board_cell(col, row)
            boards[b][c] = rows[row][col].upper()
    states = []
    for cells in boards:
        won = [p for p in 'XO' if any(all(cells[i] == p for i in line) for line in LINES)]
        states.append(won[0] if won else ('#' if '.' not in cells else '.'))
    if last != '0000':
        _, target = board_cell(*square(last))
        if states[target] == '.':
            states[target] = '@'
    return f"{side.upper()};{''.join(states)};{'/'.join(''.join(b) for b in boards)}"

def play(fen, move):
    """The FEN after `move` (only what the conversion reads: grid, side, last)."""
    rows = [list(r) for r in grid_of(fen)]
    fields = fen.split()
    col, row = square(move)
    rows[row][col] = fields[1]
    ranks = []
    for r in rows:
        text = re.sub(r'\.+', lambda m: str(len(m.group())), ''.join(r))
        ranks.append(text)
    side = 'o' if fields[1] == 'x' else 'x'
    return f"{'/'.join(ranks)} {side} {fields[2]} {move}"

def check(path, ultimo, ultimattt):
    bad = 0
    for n, line in enumerate(open(path), 1):
        fen = line.split(';')[0].strip()
        if not fen or fen.startswith('#'):
            continue
        out = subprocess.run([ultimo, 'perft', '1', '--divide', '--fen', fen],
                             capture_output=True, text=True, check=True).stdout
        moves = re.findall(r'^([a-i][1-9])\b', out, re.M)
        if not moves:
            continue  # the game is over
        ours = sorted(convert(play(fen, m)) for m in moves)
        pp = subprocess.run([ultimattt, 'pp', '--children', convert(fen)],
                            capture_output=True, text=True, check=True).stdout
        theirs = sorted(re.findall(r'^notation=(\S+)', pp, re.M))
        if ours != theirs:
            bad += 1
            print(f"line {n}: {fen}: {len(ours)} moves here, {len(theirs)} there")
    print(f"{'all agree' if bad == 0 else f'{bad} disagree'}")
    return bad == 0

if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == '--check':
        sys.exit(0 if check(*sys.argv[2:]) else 1)
    elif len(sys.argv) == 2:
        print(convert(sys.argv[1]))
    else:
        sys.exit(__doc__)
