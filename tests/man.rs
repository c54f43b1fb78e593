//! The manual pages, generated from the command line by `solescope man --out DIR` (what the
//! .deb ships), name the same subcommands and the same options as `--help`, on every level,
//! with one page per command and none for a hidden one; the README's command table names every
//! subcommand too.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn solescope() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_solescope"));
    // Keep the user's real data directory out of tests.
    command.env("HOME", std::env::temp_dir()).env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("solescope-man-test-data"),
    );
    command
}

/// `solescope <path> --help`.
fn help(path: &[String]) -> String {
    let output = solescope().args(path).arg("--help").output().unwrap();
    assert!(
        output.status.success(),
        "{path:?} --help: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The subcommands a `--help` lists, without clap's own `help`.
fn help_subcommands(help: &str) -> BTreeSet<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The long options a `--help` defines (the lines that start with an option).
fn help_options(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter(|line| line.trim_start().starts_with('-'))
        .flat_map(long_options)
        .collect()
}

/// The `--name`s in `text`.
fn long_options(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter_map(|word| word.strip_prefix("--"))
        .filter(|name| !name.is_empty())
        .map(|name| format!("--{name}"))
        .collect()
}

/// The lines of a page's section `name` (from `.SH name` to the next `.SH`) as text: roff's
/// `\-` read as `-`, its font changes (`\fB`, `\fI`, `\fR`) as spaces.
fn section(page: &str, name: &str) -> Vec<String> {
    page.lines()
        .skip_while(|line| *line != format!(".SH {name}"))
        .skip(1)
        .take_while(|line| !line.starts_with(".SH "))
        .map(|line| {
            ["\\fB", "\\fI", "\\fR", "\\fP"]
                .iter()
                .fold(line.replace("\\-", "-"), |text, font| {
                    text.replace(font, " ")
                })
                .trim()
                .to_owned()
        })
        .collect()
}

/// The line after each `.TP` of a section: the item it defines.
fn tagged(lines: &[String]) -> Vec<&str> {
    lines
        .windows(2)
        .filter(|pair| pair[0] == ".TP")
        .map(|pair| pair[1].as_str())
        .collect()
}

#[test]
fn the_man_pages_name_what_help_names_on_every_level() {
    let dir = tempfile::tempdir().unwrap();
    let output = solescope()
        .args(["man", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let written: BTreeSet<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();

    let mut expected_pages = BTreeSet::new();
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = pending.pop() {
        let help = help(&path);
        let name = std::iter::once("solescope".to_owned())
            .chain(path.iter().cloned())
            .collect::<Vec<_>>()
            .join("-");
        let file = format!("{name}.1");
        let page = std::fs::read_to_string(dir.path().join(&file))
            .unwrap_or_else(|err| panic!("{file}, the page of {path:?}: {err}"));
        expected_pages.insert(file.clone());

        let listed = help_subcommands(&help);
        let paged: BTreeSet<String> = tagged(&section(&page, "SUBCOMMANDS"))
            .iter()
            .map(|item| {
                item.strip_prefix(&format!("{name}-"))
                    .and_then(|rest| rest.strip_suffix("(1)"))
                    .unwrap_or_else(|| panic!("{file}: {item:?} is not a {name}-*(1) page"))
                    .to_owned()
            })
            .collect();
        assert_eq!(paged, listed, "{file}: subcommands against {path:?} --help");

        let options: BTreeSet<String> = tagged(&section(&page, "OPTIONS"))
            .iter()
            .flat_map(|item| long_options(item))
            .collect();
        assert_eq!(
            options,
            help_options(&help),
            "{file}: options against {path:?} --help"
        );

        for sub in listed {
            let mut deeper = path.clone();
            deeper.push(sub);
            pending.push(deeper);
        }
    }
    // One page per command --help reaches, and none for a hidden one (`man` itself).
    assert_eq!(written, expected_pages);
    assert!(written.len() >= 10, "{written:?}");

    let root = std::fs::read_to_string(dir.path().join("solescope.1")).unwrap();
    for name in ["ENVIRONMENT", "FILES"] {
        assert!(
            !section(&root, name).is_empty(),
            "solescope.1 has no {name}"
        );
    }
    let files = section(&root, "FILES").join("\n");
    for file in [
        "demo-catalogue.sqlite",
        "user.sqlite",
        "stores.sqlite",
        "kicksdb-mirror.sqlite",
        "app.ron",
    ] {
        assert!(files.contains(file), "FILES lacks {file}: {files}");
    }
}

#[test]
fn the_readme_names_every_subcommand() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let subcommands = help_subcommands(&help(&[]));
    assert!(subcommands.contains("serve"), "{subcommands:?}");
    for name in subcommands {
        assert!(
            readme.contains(&format!("`solescope {name}")),
            "the README's command table does not name `solescope {name}`"
        );
    }
}
