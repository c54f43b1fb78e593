#!/usr/bin/env python3
"""How many 64-product blocks a query's rarest title word touches, under two numberings.

A measurement of the catalogue, not of Solescope's speed
(docs/lab-search-at-a-million.md, *Which words are rare at a million*): a candidate pass driven by
the rarest query word can skip only the blocks that word misses. The products are numbered as
the search index numbers them (popularity, then `pk`) and, for comparison, by silhouette
(`model`) first.

    python3 benches/word_blocks.py CATALOGUE.sqlite QUERIES [COUNT]

QUERIES is a file of URL-encoded queries, one a line, as `search --write-queries` writes it
for `benches/http_load.sh` (`solescope-bench-<size>.queries`). Words are runs of ASCII letters
and digits, lower-cased (an approximation of the index's own splitting); a query with no word
found in any title (a GTIN, most style codes) is left out, and so is each word that is in no
title, such as one still being typed.
"""

import re
import sqlite3
import statistics
import sys
import urllib.parse
from collections import defaultdict

BLOCK_BITS = 6  # 64 products a block, as the index's bitsets


def words(text):
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def block_sets(rows):
    """Per title word, the set of blocks its products fall in, for products numbered as `rows`."""
    blocks = defaultdict(set)
    for number, (_pk, title, _model, _popularity) in enumerate(rows):
        for word in words(title):
            blocks[word].add(number >> BLOCK_BITS)
    return blocks


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    catalogue, queries_path = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) == 4 else 10_000
    with sqlite3.connect(f"file:{catalogue}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT pk, title, model, popularity FROM products").fetchall()
    with open(queries_path, encoding="utf-8") as lines:
        queries = [urllib.parse.unquote(line.strip()) for _, line in zip(range(count), lines)]
    total_blocks = (len(rows) + (1 << BLOCK_BITS) - 1) >> BLOCK_BITS
    numberings = {
        "popularity, then pk (the index)": sorted(rows, key=lambda r: (-r[3], r[0])),
        "model, then popularity": sorted(rows, key=lambda r: (r[2], -r[3], r[0])),
    }
    print(f"{len(rows)} products, {total_blocks} blocks, {len({r[2] for r in rows})} models")
    for name, order in numberings.items():
        blocks = block_sets(order)
        shares = sorted(
            min(len(blocks[w]) for w in found) / total_blocks
            for found in ([w for w in words(q) if w in blocks] for q in queries)
            if found
        )
        if not shares:
            sys.exit("no query has a word found in a title")
        under = sum(share < 0.25 for share in shares) / len(shares)
        print(
            f"{name}: {len(shares)} of {len(queries)} queries with a title word; the rarest "
            f"touches a median {100 * statistics.median(shares):.1f} % of the blocks "
            f"(p25 {100 * shares[len(shares) // 4]:.1f} %, p75 "
            f"{100 * shares[3 * len(shares) // 4]:.1f} %), under a quarter of them in "
            f"{100 * under:.1f} % of the queries"
        )


if __name__ == "__main__":
    main()
