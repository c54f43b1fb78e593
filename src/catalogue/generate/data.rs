//! The static knowledge the generator draws from: real brands, silhouettes, colorways, size
//! charts and style-code formats, so that a generated catalogue reads like a marketplace's.

/// How a brand writes its style codes (see `shared/research/market-data.md`, "Identifiers").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeFormat {
    /// Nike and Jordan: `DZ5485-612`; six characters name the model, three the colorway.
    Nike,
    /// adidas: `GW2871`.
    Adidas,
    /// New Balance: model plus colour letters, `U9060GRY`, `M990GL6`, `BB550WT1`.
    NewBalance,
    /// ASICS: `1201A019-107`.
    Asics,
    /// Converse: `A01234C`.
    Converse,
    /// Puma: `374915-01`.
    Puma,
    /// Salomon: `L41663100`.
    Salomon,
}

/// Which size run a product comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeRun {
    /// Men's US 7 to 15.
    Men,
    /// Women's US 5 to 12.
    Women,
    /// Grade school, 3.5Y to 7Y.
    GradeSchool,
    /// Toddler, 2C to 10C.
    Toddler,
    /// Pre-school, 10.5C to 3Y (only real releases come in it).
    PreSchool,
}

impl SizeRun {
    /// The `size_system` of a search hit.
    pub fn size_system(self) -> &'static str {
        match self {
            SizeRun::Men => "US M",
            SizeRun::Women => "US W",
            SizeRun::GradeSchool => "US GS",
            SizeRun::Toddler => "US TD",
            SizeRun::PreSchool => "US PS",
        }
    }

    /// The `gender` of a product in this run.
    pub fn gender(self) -> &'static str {
        match self {
            SizeRun::Men => "men",
            SizeRun::Women => "women",
            SizeRun::GradeSchool | SizeRun::PreSchool => "youth",
            SizeRun::Toddler => "toddler",
        }
    }

    /// The `age_group` of a product in this run.
    pub fn age_group(self) -> &'static str {
        match self {
            SizeRun::Men | SizeRun::Women => "adult",
            SizeRun::GradeSchool | SizeRun::PreSchool => "kids",
            SizeRun::Toddler => "infant",
        }
    }

    /// What marketplaces append to the title for this run (empty for men's).
    pub fn title_suffix(self) -> &'static str {
        match self {
            SizeRun::Men => "",
            SizeRun::Women => " (Women's)",
            SizeRun::GradeSchool => " (GS)",
            SizeRun::Toddler => " (TD)",
            SizeRun::PreSchool => " (PS)",
        }
    }

    /// The sizes of the run with their UK and EU equivalents, smallest first.
    pub fn chart(self) -> &'static [SizeRow] {
        match self {
            SizeRun::Men => MEN,
            SizeRun::Women => WOMEN,
            SizeRun::GradeSchool => GRADE_SCHOOL,
            SizeRun::Toddler => TODDLER,
            SizeRun::PreSchool => PRE_SCHOOL,
        }
    }

    /// Whether the run is a kids' run (GS, PS, TD).
    pub fn is_kids(self) -> bool {
        matches!(
            self,
            SizeRun::GradeSchool | SizeRun::PreSchool | SizeRun::Toddler
        )
    }
}

/// One row of a size chart.
#[derive(Debug, Clone, Copy)]
pub struct SizeRow {
    /// The US label as it appears on the box (`9`, `5.5Y`, `7C`).
    pub us: &'static str,
    /// UK equivalent.
    pub uk: &'static str,
    /// EU equivalent.
    pub eu: &'static str,
    /// The US size as a number, for `sizeOptions` values.
    pub value: f64,
}

const fn row(us: &'static str, uk: &'static str, eu: &'static str, value: f64) -> SizeRow {
    SizeRow { us, uk, eu, value }
}

const MEN: &[SizeRow] = &[
    row("7", "6", "40", 7.0),
    row("7.5", "6.5", "40.5", 7.5),
    row("8", "7", "41", 8.0),
    row("8.5", "7.5", "42", 8.5),
    row("9", "8", "42.5", 9.0),
    row("9.5", "8.5", "43", 9.5),
    row("10", "9", "44", 10.0),
    row("10.5", "9.5", "44.5", 10.5),
    row("11", "10", "45", 11.0),
    row("11.5", "10.5", "45.5", 11.5),
    row("12", "11", "46", 12.0),
    row("12.5", "11.5", "47", 12.5),
    row("13", "12", "47.5", 13.0),
    row("14", "13", "48.5", 14.0),
    row("15", "14", "49.5", 15.0),
];

const WOMEN: &[SizeRow] = &[
    row("5", "2.5", "35.5", 5.0),
    row("5.5", "3", "36", 5.5),
    row("6", "3.5", "36.5", 6.0),
    row("6.5", "4", "37.5", 6.5),
    row("7", "4.5", "38", 7.0),
    row("7.5", "5", "38.5", 7.5),
    row("8", "5.5", "39", 8.0),
    row("8.5", "6", "40", 8.5),
    row("9", "6.5", "40.5", 9.0),
    row("9.5", "7", "41", 9.5),
    row("10", "7.5", "42", 10.0),
    row("10.5", "8", "42.5", 10.5),
    row("11", "8.5", "43", 11.0),
    row("12", "9.5", "44.5", 12.0),
];

const GRADE_SCHOOL: &[SizeRow] = &[
    row("3.5Y", "3", "35.5", 3.5),
    row("4Y", "3.5", "36", 4.0),
    row("4.5Y", "4", "36.5", 4.5),
    row("5Y", "4.5", "37.5", 5.0),
    row("5.5Y", "5", "38", 5.5),
    row("6Y", "5.5", "38.5", 6.0),
    row("6.5Y", "6", "39", 6.5),
    row("7Y", "6", "40", 7.0),
];

const TODDLER: &[SizeRow] = &[
    row("2C", "1.5", "17", 2.0),
    row("3C", "2.5", "18.5", 3.0),
    row("4C", "3.5", "19.5", 4.0),
    row("5C", "4.5", "21", 5.0),
    row("6C", "5.5", "22", 6.0),
    row("7C", "6.5", "23.5", 7.0),
    row("8C", "7.5", "25", 8.0),
    row("9C", "8", "26", 9.0),
    row("10C", "9", "27", 10.0),
];

const PRE_SCHOOL: &[SizeRow] = &[
    row("10.5C", "10", "27.5", 10.5),
    row("11C", "10.5", "28", 11.0),
    row("11.5C", "11", "28.5", 11.5),
    row("12C", "11.5", "29.5", 12.0),
    row("12.5C", "12", "30", 12.5),
    row("13C", "12.5", "31", 13.0),
    row("13.5C", "13", "31.5", 13.5),
    row("1Y", "13.5", "32", 1.0),
    row("1.5Y", "1", "33", 1.5),
    row("2Y", "1.5", "33.5", 2.0),
    row("2.5Y", "2", "34", 2.5),
    row("3Y", "2.5", "35", 3.0),
];

/// A model line a brand sells in many colorways.
#[derive(Debug, Clone, Copy)]
pub struct Silhouette {
    /// Brand as marketplaces write it (`Jordan`, `Nike`, `adidas`).
    pub brand: &'static str,
    /// Model name without brand (`Air Jordan 1 Retro High OG`).
    pub model: &'static str,
    /// Category path.
    pub category: &'static str,
    /// Style-code format.
    pub code: CodeFormat,
    /// New Balance / ASICS model number used inside codes; empty otherwise.
    pub code_model: &'static str,
    /// Suggested retail price in USD for the men's run.
    pub retail_usd: u32,
    /// How hyped the line is: median resale / retail.
    pub hype: f64,
    /// Relative weight in the catalogue (how many colorways exist).
    pub weight: u32,
    /// Size runs it is made in.
    pub runs: &'static [SizeRun],
    /// Real colorways of the line (nickname, colorway string): generated products borrow the
    /// colorway string only, never the nickname, so they never pass for a real release.
    pub named: &'static [(&'static str, &'static str)],
    /// First year the line was sold (retros included).
    pub since: i32,
}

const ALL_RUNS: &[SizeRun] = &[
    SizeRun::Men,
    SizeRun::Women,
    SizeRun::GradeSchool,
    SizeRun::Toddler,
];
const ADULT_RUNS: &[SizeRun] = &[SizeRun::Men, SizeRun::Women];
const MEN_ONLY: &[SizeRun] = &[SizeRun::Men];
const MEN_KIDS: &[SizeRun] = &[SizeRun::Men, SizeRun::GradeSchool, SizeRun::Toddler];

/// The silhouettes the generator knows.
pub const SILHOUETTES: &[Silhouette] = &[
    Silhouette {
        brand: "Jordan",
        model: "Air Jordan 1 Retro High OG",
        category: "Sneakers > Basketball > Air Jordan 1",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 180,
        hype: 1.35,
        weight: 10,
        runs: ALL_RUNS,
        named: &[
            ("Chicago Lost and Found", "Varsity Red/Black-Sail-Muslin"),
            ("Bred Patent", "Black/White-Varsity Red"),
            ("Royal Reimagined", "Black/Royal Blue-White"),
            ("Shadow 2.0", "Black/Light Smoke Grey-White"),
            ("UNC Toe", "White/University Blue-Black"),
            ("Mocha", "Sail/Dark Mocha-Black-Black"),
            ("Dark Marina Blue", "Dark Marina Blue/Black-White"),
            ("Lucky Green", "Black/White-Lucky Green"),
            ("Black Toe Reimagined", "White/Black-Varsity Red"),
            ("Washed Heritage", "Sail/Varsity Red-Black"),
        ],
        since: 2013,
    },
    Silhouette {
        brand: "Jordan",
        model: "Air Jordan 1 Low",
        category: "Sneakers > Basketball > Air Jordan 1",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 115,
        hype: 1.0,
        weight: 7,
        runs: ALL_RUNS,
        named: &[
            ("Wolf Grey", "White/Wolf Grey-Aluminum"),
            ("Panda", "White/Black-White"),
            ("Year of the Dragon", "Sail/Team Orange-Black"),
            ("Shadow Toe", "Black/Light Smoke Grey-White"),
            ("Vintage UNC", "White/University Blue-Black"),
        ],
        since: 2015,
    },
    Silhouette {
        brand: "Jordan",
        model: "Air Jordan 4 Retro",
        category: "Sneakers > Basketball > Air Jordan 4",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 215,
        hype: 1.3,
        weight: 6,
        runs: ALL_RUNS,
        named: &[
            ("Military Blue", "Off White/Military Blue-Neutral Grey"),
            ("Bred Reimagined", "Fire Red/Cement Grey-Summit White-Black"),
            ("White Thunder", "White/Black-Tour Yellow"),
            ("Frozen Moments", "Light Iron Ore/Sail-Neutral Grey-Black"),
            ("Black Cat", "Black/Black-Light Graphite"),
        ],
        since: 2016,
    },
    Silhouette {
        brand: "Jordan",
        model: "Air Jordan 11 Retro",
        category: "Sneakers > Basketball > Air Jordan 11",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 230,
        hype: 1.2,
        weight: 4,
        runs: ALL_RUNS,
        named: &[
            ("Cool Grey", "Medium Grey/White-Cool Grey"),
            ("Columbia", "White/Legend Blue/Black"),
            ("Gratitude", "White/Black-Metallic Gold"),
            ("Bred Velvet", "Black/Gym Red-Black"),
            ("Cherry", "White/Varsity Red-Black"),
        ],
        since: 2016,
    },
    Silhouette {
        brand: "Nike",
        model: "Dunk Low Retro",
        category: "Sneakers > Lifestyle > Dunk",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 115,
        hype: 1.05,
        weight: 10,
        runs: ALL_RUNS,
        named: &[
            ("Panda", "White/Black-White"),
            ("Grey Fog", "White/Grey Fog"),
            ("Championship Red", "White/University Red"),
            ("Medium Olive", "Medium Olive/Black-White"),
            ("Reverse Panda", "Black/White-Black"),
            ("Coast", "White/Coast-University Gold"),
        ],
        since: 2016,
    },
    Silhouette {
        brand: "Nike",
        model: "SB Dunk Low Pro",
        category: "Sneakers > Skateboarding > Dunk",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 115,
        hype: 1.6,
        weight: 5,
        runs: MEN_ONLY,
        named: &[
            ("Travis Scott", "Multi-Color/Multi-Color-Muslin"),
            (
                "Strangelove Skateboards",
                "Bright Melon/Gym Red-Medium Soft Pink",
            ),
            ("Chunky Dunky", "Dark Gold/Black-Sail"),
            ("Jarritos", "Phantom/Safety Orange-Malachite"),
            ("Ben & Jerry's", "Multi-Color/Multi-Color"),
        ],
        since: 2002,
    },
    Silhouette {
        brand: "Nike",
        model: "Air Force 1 '07",
        category: "Sneakers > Lifestyle > Air Force 1",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 115,
        hype: 0.95,
        weight: 8,
        runs: ALL_RUNS,
        named: &[
            ("Triple White", "White/White-White"),
            ("Triple Black", "Black/Black-Black"),
            ("Flax", "Flax/Flax-Gum Light Brown"),
            ("Sail Gum", "Sail/Gum Light Brown"),
        ],
        since: 2007,
    },
    Silhouette {
        brand: "Nike",
        model: "Air Max 1 '86 OG",
        category: "Sneakers > Running > Air Max",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 150,
        hype: 1.0,
        weight: 4,
        runs: ADULT_RUNS,
        named: &[
            ("Big Bubble Red", "White/University Red-Light Neutral Grey"),
            ("Royal", "White/Royal Blue-Neutral Grey"),
            ("Lost Sketch", "Sail/Black-Neutral Grey"),
        ],
        since: 2017,
    },
    Silhouette {
        brand: "Nike",
        model: "KD 4",
        category: "Sneakers > Basketball > KD",
        code: CodeFormat::Nike,
        code_model: "",
        retail_usd: 130,
        hype: 0.9,
        weight: 2,
        runs: MEN_KIDS,
        named: &[
            ("NERF", "Multi-Color/Multi-Color"),
            ("Galaxy", "Black/Blue-Gold"),
            ("Year of the Monkey", "Black/Metallic Gold"),
        ],
        since: 2011,
    },
    Silhouette {
        brand: "adidas",
        model: "Yeezy Boost 350 V2",
        category: "Sneakers > Lifestyle > Yeezy",
        code: CodeFormat::Adidas,
        code_model: "",
        retail_usd: 230,
        hype: 1.3,
        weight: 6,
        runs: &[SizeRun::Men, SizeRun::Toddler],
        named: &[
            ("Zebra", "White/Core Black/Red"),
            ("Slate", "Slate/Core Black/Slate"),
            ("Onyx", "Onyx/Onyx/Onyx"),
            ("Bone", "Bone/Bone/Bone"),
            ("Beluga Reflective", "Steeple Grey/Beluga/Solar Red"),
            ("Carbon Beluga", "Carbon Beluga/Carbon Beluga"),
        ],
        since: 2016,
    },
    Silhouette {
        brand: "adidas",
        model: "Samba OG",
        category: "Sneakers > Lifestyle > Samba",
        code: CodeFormat::Adidas,
        code_model: "",
        retail_usd: 100,
        hype: 1.15,
        weight: 8,
        runs: &[SizeRun::Men, SizeRun::Women, SizeRun::GradeSchool],
        named: &[
            (
                "Cloud White Core Black",
                "Cloud White/Core Black/Clear Granite",
            ),
            ("Black Gum", "Core Black/Cloud White/Gum"),
            (
                "Off White Alumina Snakeskin",
                "Off White/Alumina/Wonder White",
            ),
            ("Collegiate Green", "Collegiate Green/Cloud White/Gum"),
        ],
        since: 2018,
    },
    Silhouette {
        brand: "adidas",
        model: "Gazelle Indoor",
        category: "Sneakers > Lifestyle > Gazelle",
        code: CodeFormat::Adidas,
        code_model: "",
        retail_usd: 120,
        hype: 1.05,
        weight: 4,
        runs: ADULT_RUNS,
        named: &[
            ("Blue Fusion Gum", "Blue Fusion/Cloud White/Gum"),
            ("Scarlet", "Scarlet/Cloud White/Gum"),
            ("Semi Lucid Blue", "Semi Lucid Blue/Cloud White/Gum"),
        ],
        since: 2019,
    },
    Silhouette {
        brand: "adidas",
        model: "Campus 00s",
        category: "Sneakers > Lifestyle > Campus",
        code: CodeFormat::Adidas,
        code_model: "",
        retail_usd: 110,
        hype: 0.95,
        weight: 4,
        runs: ALL_RUNS,
        named: &[
            ("Core Black", "Core Black/Cloud White/Off White"),
            ("Grey White", "Grey Three/Cloud White/Off White"),
            ("Dark Green", "Dark Green/Cloud White/Off White"),
        ],
        since: 2022,
    },
    Silhouette {
        brand: "New Balance",
        model: "550",
        category: "Sneakers > Basketball > 550",
        code: CodeFormat::NewBalance,
        code_model: "550",
        retail_usd: 110,
        hype: 1.0,
        weight: 6,
        runs: ALL_RUNS,
        named: &[
            ("White Green", "White/Green"),
            ("White Grey", "White/Grey"),
            ("Sea Salt Navy", "Sea Salt/Navy"),
            ("UNC", "White/Dark Sky Blue"),
        ],
        since: 2020,
    },
    Silhouette {
        brand: "New Balance",
        model: "990v6 Made in USA",
        category: "Sneakers > Running > 990",
        code: CodeFormat::NewBalance,
        code_model: "990",
        retail_usd: 200,
        hype: 1.05,
        weight: 4,
        runs: ADULT_RUNS,
        named: &[
            ("Grey", "Grey/Grey"),
            ("Black", "Black/Black"),
            ("Navy", "Navy/White"),
        ],
        since: 2022,
    },
    Silhouette {
        brand: "New Balance",
        model: "9060",
        category: "Sneakers > Lifestyle > 9060",
        code: CodeFormat::NewBalance,
        code_model: "9060",
        retail_usd: 150,
        hype: 1.1,
        weight: 5,
        runs: ALL_RUNS,
        named: &[
            ("Rain Cloud Grey", "Rain Cloud/Castlerock/Grey"),
            ("Sea Salt Moonbeam", "Sea Salt/Moonbeam/Timberwolf"),
            ("Black Castlerock", "Black/Castlerock/Grey"),
        ],
        since: 2022,
    },
    Silhouette {
        brand: "New Balance",
        model: "2002R",
        category: "Sneakers > Running > 2002R",
        code: CodeFormat::NewBalance,
        code_model: "2002",
        retail_usd: 150,
        hype: 1.0,
        weight: 4,
        runs: ADULT_RUNS,
        named: &[
            (
                "Protection Pack Rain Cloud",
                "Rain Cloud/Grey/Light Aluminum",
            ),
            ("Phantom", "Phantom/Black"),
        ],
        since: 2020,
    },
    Silhouette {
        brand: "ASICS",
        model: "GEL-Kayano 14",
        category: "Sneakers > Running > GEL-Kayano",
        code: CodeFormat::Asics,
        code_model: "1201",
        retail_usd: 150,
        hype: 1.1,
        weight: 5,
        runs: ADULT_RUNS,
        named: &[
            ("White Pure Silver", "White/Pure Silver"),
            ("Cream Black", "Cream/Black"),
            ("Birch Dark Pewter", "Birch/Dark Pewter"),
        ],
        since: 2021,
    },
    Silhouette {
        brand: "ASICS",
        model: "GEL-1130",
        category: "Sneakers > Running > GEL-1130",
        code: CodeFormat::Asics,
        code_model: "1201",
        retail_usd: 110,
        hype: 1.0,
        weight: 4,
        runs: ADULT_RUNS,
        named: &[
            ("White Clay Canyon", "White/Clay Canyon"),
            ("Black Pure Silver", "Black/Pure Silver"),
        ],
        since: 2022,
    },
    Silhouette {
        brand: "ASICS",
        model: "GEL-NYC",
        category: "Sneakers > Running > GEL-NYC",
        code: CodeFormat::Asics,
        code_model: "1203",
        retail_usd: 140,
        hype: 1.0,
        weight: 3,
        runs: ADULT_RUNS,
        named: &[
            ("Graphite Grey", "Graphite Grey/Black"),
            ("Cream Oyster Grey", "Cream/Oyster Grey"),
        ],
        since: 2022,
    },
    Silhouette {
        brand: "Converse",
        model: "Chuck 70 Hi",
        category: "Sneakers > Lifestyle > Chuck Taylor",
        code: CodeFormat::Converse,
        code_model: "",
        retail_usd: 90,
        hype: 0.9,
        weight: 4,
        runs: ALL_RUNS,
        named: &[
            ("Parchment", "Parchment/Garnet/Egret"),
            ("Black", "Black/Black/Egret"),
        ],
        since: 2018,
    },
    Silhouette {
        brand: "Puma",
        model: "Speedcat OG",
        category: "Sneakers > Lifestyle > Speedcat",
        code: CodeFormat::Puma,
        code_model: "",
        retail_usd: 100,
        hype: 1.05,
        weight: 3,
        runs: ADULT_RUNS,
        named: &[
            ("Red White", "For All Time Red/Puma White"),
            ("Black White", "Puma Black/Puma White"),
        ],
        since: 2024,
    },
    Silhouette {
        brand: "Salomon",
        model: "XT-6",
        category: "Sneakers > Trail > XT-6",
        code: CodeFormat::Salomon,
        code_model: "",
        retail_usd: 200,
        hype: 1.0,
        weight: 3,
        runs: ADULT_RUNS,
        named: &[
            ("Black Phantom", "Black/Black/Phantom"),
            ("Vanilla Ice", "Vanilla Ice/Almond Milk/Lunar Rock"),
        ],
        since: 2019,
    },
];

/// Colour names used to invent further colorways, as brands write them.
pub const COLOURS: &[&str] = &[
    "Black",
    "White",
    "Sail",
    "Summit White",
    "University Blue",
    "Varsity Red",
    "Gym Red",
    "University Red",
    "Royal Blue",
    "Midnight Navy",
    "Pine Green",
    "Lucky Green",
    "Light Smoke Grey",
    "Wolf Grey",
    "Cool Grey",
    "Cement Grey",
    "Medium Olive",
    "Cargo Khaki",
    "Light Bone",
    "Phantom",
    "Coconut Milk",
    "Pale Ivory",
    "Team Orange",
    "Laser Orange",
    "Tour Yellow",
    "Metallic Gold",
    "Metallic Silver",
    "Hyper Pink",
    "Court Purple",
    "Dark Mocha",
    "Baroque Brown",
    "Gum Light Brown",
    "Cream",
    "Sea Salt",
    "Rain Cloud",
    "Castlerock",
    "Core Black",
    "Cloud White",
    "Wonder White",
    "Oyster Grey",
];

/// Words marketplaces put in colorway nicknames besides colours.
pub const NICKNAME_WORDS: &[&str] = &[
    "Reverse",
    "Vintage",
    "Washed",
    "Suede",
    "Patent",
    "Canvas",
    "Premium",
    "SE",
    "Craft",
    "Satin",
    "Reflective",
    "Glow",
    "Camo",
    "Corduroy",
    "Denim",
    "Sashiko",
    "Snakeskin",
    "Hemp",
    "Next Nature",
];

/// Labels a product can carry.
pub const LABELS: &[&str] = &[
    "limited",
    "collaboration",
    "retro",
    "new release",
    "restock",
    "exclusive",
];

/// US holidays and shopping events that lift weekly orders: (month, first day, last day, lift).
pub const SEASONS: &[(u32, u32, u32, f64)] = &[
    (11, 20, 30, 1.45), // Black Friday / Cyber Monday
    (12, 1, 24, 1.55),  // Holiday gifting
    (12, 25, 31, 1.15),
    (8, 1, 31, 1.12), // Back to school
    (2, 10, 20, 1.08),
];
