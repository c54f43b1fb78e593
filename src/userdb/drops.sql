-- Drops: the drops the user starred, each reminded of once, `remind_minutes` before it opens.
CREATE TABLE drop_stars (
    key TEXT PRIMARY KEY NOT NULL,          -- the drop's style code key (letters and digits, upper case), else its title's
    title TEXT NOT NULL,
    style_code TEXT NOT NULL,
    product_id TEXT,
    starts_at TEXT NOT NULL,                -- RFC 3339 UTC: when it opens (its day at 00:00 UTC when no time is known)
    remind_minutes INTEGER NOT NULL,
    reminded_at TEXT                        -- NULL until its reminder was shown
) STRICT;
