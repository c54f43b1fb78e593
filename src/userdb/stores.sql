-- The retail storefronts the user reads prices and stock from: a store's origin
-- (`https://kith.com`), in the order they are asked.
CREATE TABLE retailer_store (
    url TEXT PRIMARY KEY NOT NULL,
    position INTEGER NOT NULL,
    added_at INTEGER NOT NULL
) STRICT;
