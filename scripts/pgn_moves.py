"""The moves of each game of a PGN file, for the scripts beside it."""
import re


def games(text):
    """Yields each game's moves (`a1`-`i9`), comments and tags left out."""
    for block in re.split(r'\n\s*\n(?=\[)', text):
        body = '\n'.join(l for l in block.splitlines() if not l.startswith('['))
        body = re.sub(r'\{[^}]*\}', ' ', body)
        moves = [t for t in body.split() if re.fullmatch(r'[a-i][1-9]', t)]
        if moves:
            yield moves
