-- My sizes: the US sizes the user wears or resells, one a row as the flip list and the release
-- calendar write a US size (`9`, `10.5`). Shared by the Flips tab (its filter and its alerts) and
-- the Drops calendar's filter.
CREATE TABLE my_sizes (
    size TEXT PRIMARY KEY NOT NULL
) STRICT;
