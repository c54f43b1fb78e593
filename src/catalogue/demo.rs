//! The demo catalogue: built on first run in the user's data directory, reused afterwards,
//! migrated when an older Solescope wrote it, rebuilt (after saying so) when damaged, and
//! rebuilt when another version of the generator built it: the demo is regenerable data (the
//! user's own data lives elsewhere), so a new generator, releases table or table of the 2023
//! snapshot's levels reaches every user (all three are in [`generate::generator_version`]).

use std::path::{Path, PathBuf};

use super::generate::{self, GenerateOptions, Progress};
use super::{Catalogue, CatalogueError};

/// Products in the demo catalogue.
pub const DEMO_PRODUCTS: u32 = 20_000;
/// Seed of the demo catalogue.
pub const DEMO_SEED: u64 = 2026;
/// File name of the demo catalogue inside the data directory.
pub const DEMO_FILE_NAME: &str = "demo-catalogue.sqlite";

/// The user's data directory for Solescope (`~/.local/share/solescope` on Linux).
pub fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("org", "Solescope", "solescope")
        .map(|dirs| dirs.data_dir().to_path_buf())
}

/// Where the demo catalogue lives by default.
pub fn default_path() -> Option<PathBuf> {
    data_dir().map(|dir| dir.join(DEMO_FILE_NAME))
}

/// What [`ensure`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoOutcome {
    /// A current catalogue was already there.
    Reused,
    /// An older catalogue was there and was migrated.
    Migrated {
        /// Its schema version before.
        from: u32,
    },
    /// There was none; one was built.
    Built,
    /// Another version of the generator built it (or none recorded its version): it was
    /// replaced by a fresh build.
    Regenerated {
        /// The generator version it recorded, if any.
        from: Option<String>,
    },
    /// The file was damaged: it was moved aside (not deleted) and a new one built.
    Rebuilt {
        /// Why the old file was unusable.
        reason: String,
        /// Where the damaged file was moved.
        moved_to: PathBuf,
    },
}

/// Makes sure a usable demo catalogue exists at `path`, building it if needed.
///
/// `before_build` is told why a build is about to start (so the user hears of a damaged file
/// before it is replaced); `progress` follows the build.
pub fn ensure(
    path: &Path,
    before_build: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(Progress),
) -> Result<DemoOutcome, CatalogueError> {
    let options = GenerateOptions {
        products: DEMO_PRODUCTS,
        seed: DEMO_SEED,
        as_of: chrono::Utc::now().date_naive(),
        demo_keys: true,
    };
    ensure_with(path, &options, before_build, progress)
}

fn ensure_with(
    path: &Path,
    options: &GenerateOptions,
    before_build: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(Progress),
) -> Result<DemoOutcome, CatalogueError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| CatalogueError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let outcome = if path.exists() {
        let version_before = peek_version(path);
        match Catalogue::open(path).and_then(|catalogue| {
            catalogue.integrity_check()?;
            Ok((
                catalogue.product_count()?,
                catalogue.meta(generate::GENERATOR_VERSION_KEY)?,
            ))
        }) {
            Ok((count, built_by)) if count > 0 => {
                if built_by.as_deref() != Some(generate::generator_version()) {
                    before_build(
                        "The demo catalogue was built by another version of the generator; rebuilding it.",
                    );
                    // Replaced only once the new file is complete (see `generate`).
                    generate::generate(options, path, progress)?;
                    return Ok(DemoOutcome::Regenerated { from: built_by });
                }
                return Ok(match version_before {
                    Some(from) if from < super::SCHEMA_VERSION => DemoOutcome::Migrated { from },
                    _ => DemoOutcome::Reused,
                });
            }
            Ok(_) => Some(("the catalogue holds no products".to_owned(), path)),
            Err(err @ CatalogueError::TooNew { .. }) => return Err(err),
            Err(err) => Some((format!("{err:#}"), path)),
        }
    } else {
        None
    };
    let outcome = if let Some((reason, path)) = outcome {
        let moved_to = aside_path(path);
        before_build(&format!(
            "The demo catalogue is damaged ({reason}). It was moved to {} and a new one is being built.",
            moved_to.display()
        ));
        std::fs::rename(path, &moved_to).map_err(|source| CatalogueError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        DemoOutcome::Rebuilt { reason, moved_to }
    } else {
        before_build("Building the demo catalogue (first run).");
        DemoOutcome::Built
    };
    generate::generate(options, path, progress)?;
    Ok(outcome)
}

fn peek_version(path: &Path) -> Option<u32> {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .ok()?;
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
        .ok()
}

/// `demo-catalogue.sqlite` -> `demo-catalogue.sqlite.damaged-20261122T153812`.
fn aside_path(path: &Path) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".damaged-{stamp}"));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> GenerateOptions {
        GenerateOptions {
            products: 1_000,
            seed: DEMO_SEED,
            as_of: chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap(),
            demo_keys: true,
        }
    }

    fn set_version(path: &Path, version: Option<&str>) {
        let conn = rusqlite::Connection::open(path).unwrap();
        conn.execute(
            "DELETE FROM meta WHERE key = ?1",
            [generate::GENERATOR_VERSION_KEY],
        )
        .unwrap();
        if let Some(version) = version {
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                [generate::GENERATOR_VERSION_KEY, version],
            )
            .unwrap();
        }
    }

    fn version_of(path: &Path) -> Option<String> {
        Catalogue::open(path)
            .unwrap()
            .meta(generate::GENERATOR_VERSION_KEY)
            .unwrap()
    }

    #[test]
    fn a_demo_built_by_another_generator_is_rebuilt_and_a_current_one_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DEMO_FILE_NAME);
        let ensure = |told: &mut Vec<String>| {
            ensure_with(
                &path,
                &small(),
                &mut |m| told.push(m.to_owned()),
                &mut |_| {},
            )
            .unwrap()
        };
        let mut told = Vec::new();
        assert_eq!(ensure(&mut told), DemoOutcome::Built);
        assert_eq!(
            version_of(&path).as_deref(),
            Some(generate::generator_version())
        );

        // A current demo is reused without a word.
        told.clear();
        assert_eq!(ensure(&mut told), DemoOutcome::Reused);
        assert!(told.is_empty(), "{told:?}");

        // An older generator's demo (say, before new rows in the releases table) is rebuilt.
        set_version(&path, Some("r1-0000000000000000"));
        told.clear();
        assert_eq!(
            ensure(&mut told),
            DemoOutcome::Regenerated {
                from: Some("r1-0000000000000000".to_owned())
            }
        );
        assert_eq!(told.len(), 1, "{told:?}");
        assert_eq!(
            version_of(&path).as_deref(),
            Some(generate::generator_version())
        );
        assert_eq!(
            Catalogue::open(&path).unwrap().product_count().unwrap(),
            1_000
        );

        // So is one from before versions were recorded.
        set_version(&path, None);
        assert_eq!(
            ensure(&mut Vec::new()),
            DemoOutcome::Regenerated { from: None }
        );
        assert_eq!(ensure(&mut Vec::new()), DemoOutcome::Reused);
    }
}
