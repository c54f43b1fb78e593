-- The portfolio: the pairs held (a snapshot of the product's identity, so a pair survives a
-- catalogue change and is matched again by style code and size), and the sale of each pair
-- sold. Money in integer cents with its currency.
CREATE TABLE holding (
    id INTEGER PRIMARY KEY,
    product_id TEXT NOT NULL,
    slug TEXT NOT NULL,
    sku TEXT NOT NULL,
    -- Letters and digits of the style code, upper case: what a pair is matched by.
    sku_key TEXT NOT NULL,
    title TEXT NOT NULL,
    size TEXT NOT NULL,
    condition TEXT NOT NULL CHECK (condition IN ('new', 'used', 'new_with_defects')),
    purchased_on TEXT NOT NULL CHECK (purchased_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    cost_cents INTEGER NOT NULL CHECK (cost_cents >= 0),
    currency TEXT NOT NULL CHECK (length(currency) = 3),
    bought_from TEXT NOT NULL,
    notes TEXT NOT NULL,
    -- A JSON array of strings.
    tags TEXT NOT NULL CHECK (json_valid(tags))
) STRICT;
CREATE INDEX holding_by_sku_size ON holding (sku_key, size);

CREATE TABLE sale (
    holding_id INTEGER PRIMARY KEY REFERENCES holding (id) ON DELETE CASCADE,
    sold_on TEXT NOT NULL CHECK (sold_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    marketplace TEXT NOT NULL,
    fees_cents INTEGER NOT NULL CHECK (fees_cents >= 0),
    shipping_cents INTEGER NOT NULL CHECK (shipping_cents >= 0)
) STRICT;
