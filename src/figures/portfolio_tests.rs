//! Tests of the portfolio arithmetic (cents) and of the spreadsheet readers.

use chrono::NaiveDate;

use super::*;
use crate::model::portfolio::{Condition, Holding, Pair, Sale};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn pair(cost_cents: i64) -> Pair {
    Pair {
        product_id: "p1".into(),
        slug: "air-thing".into(),
        sku: "DD1391-100".into(),
        title: "Air Thing".into(),
        size: "10".into(),
        condition: Condition::New,
        purchased_on: day("2024-01-10"),
        cost_cents,
        currency: "USD".into(),
        bought_from: String::new(),
        notes: String::new(),
        tags: Vec::new(),
    }
}

#[test]
fn fees_are_rounded_to_the_cent_per_rate_plus_the_flat_fee() {
    // 8 % of 199.99 = 15.9992 -> 16.00; 2.9 % = 5.79971 -> 5.80; no flat fee.
    assert_eq!(fees_cents(19_999, RESALE_B_DEFAULT_FEES), 1_600 + 580);
    // 9 % of 100 = 9, 3 % = 3, + 5 flat.
    assert_eq!(fees_cents(10_000, RESALE_A_DEFAULT_FEES), 1_700);
    assert_eq!(fees_cents(0, RESALE_A_DEFAULT_FEES), 500);
}

#[test]
fn unrealized_pnl_is_market_minus_fees_minus_cost_in_cents() {
    let value = unrealized(15_000, 20_000, RESALE_A_DEFAULT_FEES);
    // fees: 1800 + 600 + 500 = 2900; 20000 - 2900 - 15000 = 2100.
    assert_eq!(value.fees_cents, 2_900);
    assert_eq!(value.pnl_cents, 2_100);
    assert!((value.roi.unwrap() - 0.14).abs() < 1e-12);
    assert_eq!(unrealized(0, 1_000, RESALE_B_DEFAULT_FEES).roi, None);
    // Many small amounts add up exactly: no float drift.
    let total: i64 = (0..1000)
        .map(|_| {
            unrealized(
                10,
                11,
                FeeRates {
                    commission_percent: 0.0,
                    processing_percent: 0.0,
                    fixed_fee: 0.0,
                },
            )
            .pnl_cents
        })
        .sum();
    assert_eq!(total, 1000);
}

#[test]
fn realized_pnl_takes_fees_shipping_and_counts_days_held() {
    let sale = Sale {
        sold_on: day("2024-03-10"),
        price_cents: 25_000,
        marketplace: "resale-b".into(),
        fees_cents: 2_725,
        shipping_cents: 1_499,
    };
    let made = realized(&pair(17_000), &sale);
    assert_eq!(made.net_cents, 25_000 - 2_725 - 1_499);
    assert_eq!(made.pnl_cents, 3_776);
    assert_eq!(made.days_held, 60);
    assert!((made.roi.unwrap() - 3_776.0 / 17_000.0).abs() < 1e-12);
}

#[test]
fn totals_split_held_and_sold_and_currencies() {
    let sold = Sale {
        sold_on: day("2024-02-01"),
        price_cents: 30_000,
        marketplace: String::new(),
        fees_cents: 0,
        shipping_cents: 0,
    };
    let mut eur = pair(9_000);
    eur.currency = "EUR".into();
    let holdings = [
        Holding {
            id: 1,
            pair: pair(10_000),
            sale: None,
        },
        Holding {
            id: 2,
            pair: pair(20_000),
            sale: None,
        },
        Holding {
            id: 3,
            pair: pair(25_000),
            sale: Some(sold),
        },
        Holding {
            id: 4,
            pair: eur,
            sale: None,
        },
    ];
    let no_fees = FeeRates {
        commission_percent: 0.0,
        processing_percent: 0.0,
        fixed_fee: 0.0,
    };
    let totals = totals_by_currency(&holdings, |h| (h.id == 1).then_some(12_000), no_fees);
    let usd = totals["USD"];
    assert_eq!((usd.held, usd.valued, usd.sold), (2, 1, 1));
    assert_eq!(usd.cost_cents, 30_000);
    assert_eq!(usd.valued_cost_cents, 10_000);
    assert_eq!(usd.market_cents, 12_000);
    assert_eq!(usd.unrealized_cents, 2_000);
    assert_eq!(usd.realized_cents, 5_000);
    assert_eq!(totals["EUR"].cost_cents, 9_000);
}

#[test]
fn money_is_read_with_symbols_codes_and_thousands_separators() {
    assert_eq!(parse_money("$1,234.56"), Ok((123_456, Some("USD"))));
    assert_eq!(parse_money("1.234,56 €"), Ok((123_456, Some("EUR"))));
    assert_eq!(parse_money("EUR 180"), Ok((18_000, Some("EUR"))));
    assert_eq!(parse_money("180,5"), Ok((18_050, None)));
    assert_eq!(parse_money("1,234"), Ok((123_400, None)));
    assert_eq!(parse_money("1 234,00"), Ok((123_400, None)));
    assert_eq!(parse_money("£99.9"), Ok((9_990, Some("GBP"))));
    assert_eq!(parse_money("-12"), Ok((-1_200, None)));
    assert_eq!(parse_money("0.5"), Ok((50, None)));
    assert!(parse_money("abc").is_err());
    assert!(parse_money("").is_err());
    assert!(parse_money("1.2345").is_err());
    assert!(parse_money("99999999999999999999").is_err());
    assert_eq!(amount_from_cents(-305), "-3.05");
    assert_eq!(amount_from_cents(123_450), "1234.50");
}

#[test]
fn sizes_are_read_into_the_catalogue_labels() {
    for (text, label) in [
        ("10", "10"),
        ("US 10", "10"),
        ("M 10", "10"),
        ("US M 10.5", "10.5"),
        ("10.5Y", "10.5Y"),
        ("10.5 y", "10.5Y"),
        ("GS 6", "6Y"),
        ("7C", "7C"),
        ("TD 7", "7C"),
        ("W 8", "8W"),
        ("9,5", "9.5"),
    ] {
        assert_eq!(parse_size_label(text).as_deref(), Ok(label), "{text}");
    }
    for bad in ["", "XL", "10.3", "ten", "10 11", "99"] {
        assert!(parse_size_label(bad).is_err(), "{bad}");
    }
}

#[test]
fn style_codes_are_read_with_or_without_the_dash() {
    assert_eq!(parse_style_code("DD1391-100").as_deref(), Ok("DD1391-100"));
    assert_eq!(parse_style_code("dd1391100").as_deref(), Ok("DD1391-100"));
    assert_eq!(
        parse_style_code(" DD1391 100 ").as_deref(),
        Ok("DD1391-100")
    );
    assert_eq!(parse_style_code("GY0982").as_deref(), Ok("GY0982"));
    assert!(parse_style_code("").is_err());
    assert!(parse_style_code("A1").is_err());
    assert!(parse_style_code("DD1391;100").is_err());
    assert_eq!(
        crate::model::portfolio::sku_key("dd1391-100"),
        crate::model::portfolio::sku_key("DD1391100")
    );
}

#[test]
fn dates_are_read_in_the_usual_orders() {
    assert_eq!(parse_date("2024-03-09"), Ok(day("2024-03-09")));
    assert_eq!(parse_date("03/09/2024"), Ok(day("2024-03-09")));
    assert_eq!(parse_date("09.03.2024"), Ok(day("2024-03-09")));
    assert!(parse_date("2024-02-30").is_err());
}

const GOOD_CSV: &str = "Style Code,Size,Name,Condition,Date Bought,Price Paid,Store,Tags,Sold On,Sold For,Platform,Fees,Shipping
dd1391100,US 10,Dunk Low,DS,2024-01-05,\"$1,180.00\",Nike,grail; keep,,,,,
DD1391-100,10.5Y,Dunk Low GS,used,01/06/2024,$95,Foot Locker,,2024-02-01,$140,resale-b,$15.20,$12
GY0982,7C,Yeezy,,2024-01-07,110,,,,,,,
";

#[test]
fn a_good_file_is_read_line_by_line_with_its_sales() {
    let preview = parse_portfolio_csv(GOOD_CSV, "EUR").unwrap();
    assert_eq!(preview.rows.len(), 3);
    let (first, sale) = &preview.rows[0];
    assert_eq!(first.sku, "DD1391-100");
    assert_eq!(first.size, "10");
    assert_eq!(first.cost_cents, 118_000);
    assert_eq!(first.currency, "USD");
    assert_eq!(first.tags, ["grail", "keep"]);
    assert!(sale.is_none());
    let (second, sale) = &preview.rows[1];
    assert_eq!(second.condition, Condition::Used);
    let sale = sale.as_ref().unwrap();
    assert_eq!(
        (sale.price_cents, sale.fees_cents, sale.shipping_cents),
        (14_000, 1_520, 1_200)
    );
    assert_eq!(sale.marketplace, "resale-b");
    assert_eq!(
        preview.rows[2].0.currency, "EUR",
        "no symbol: the default currency"
    );
    assert!(preview.columns.iter().all(|(_, field)| field.is_some()));
}

#[test]
fn a_bad_cell_names_its_line_and_column_and_nothing_is_returned() {
    let bad = format!("{GOOD_CSV}CW2288-111,11,Air Force 1,new,2024-01-08,12x.00,,,,,,,\n");
    let err = parse_portfolio_csv(&bad, "USD").unwrap_err();
    assert_eq!(
        err,
        ImportError::Cell {
            line: 5,
            column: 6,
            header: "Price Paid".into(),
            reason: "\"12x.00\" is not an amount of money".into(),
        }
    );
    assert!(err.to_string().contains("line 5, column 6"), "{err}");
    let short = "sku,size,cost,date\nDD1391-100,10,100\n";
    assert!(matches!(
        parse_portfolio_csv(short, "USD"),
        Err(ImportError::Malformed { line: 2, .. })
    ));
    assert!(matches!(
        parse_portfolio_csv("size,cost,date\n10,1,2024-01-01\n", "USD"),
        Err(ImportError::MissingColumn("style code", _))
    ));
}

#[test]
fn an_export_is_read_back_the_same() {
    let preview = parse_portfolio_csv(GOOD_CSV, "EUR").unwrap();
    let text = portfolio_csv(preview.rows.iter().map(|(p, s)| (p, s.as_ref()))).unwrap();
    let again = parse_portfolio_csv(&text, "GBP").unwrap();
    assert_eq!(again.rows, preview.rows);
}

#[test]
fn the_weekly_value_counts_pairs_held_that_week_at_its_aov() {
    let mut sold = pair(10_000);
    sold.purchased_on = day("2024-01-01");
    let sale = Sale {
        sold_on: day("2024-01-10"),
        price_cents: 15_000,
        marketplace: String::new(),
        fees_cents: 0,
        shipping_cents: 500,
    };
    let mut late = pair(10_000);
    late.purchased_on = day("2024-01-16");
    late.sku = "OTHER-1".into();
    let holdings = [
        Holding {
            id: 1,
            pair: sold,
            sale: Some(sale),
        },
        Holding {
            id: 2,
            pair: late,
            sale: None,
        },
    ];
    let weeks = [day("2024-01-01"), day("2024-01-08"), day("2024-01-15")];
    let aov = |p: &Pair, _week: NaiveDate| (p.sku == "DD1391-100").then_some(120.5);
    let values = value_by_week(&holdings, "USD", &weeks, aov);
    assert_eq!(
        values.iter().map(|w| w.value_cents).collect::<Vec<_>>(),
        [12_050, 12_050, 0]
    );
    assert_eq!(
        values
            .iter()
            .map(|w| (w.held, w.priced))
            .collect::<Vec<_>>(),
        [(1, 1), (1, 1), (1, 0)]
    );
    assert!(
        value_by_week(&holdings, "EUR", &weeks, aov)
            .iter()
            .all(|w| w.held == 0)
    );
    assert_eq!(
        realized_by_month(&holdings, "USD"),
        [(day("2024-01-01"), 4_500)]
    );
}
