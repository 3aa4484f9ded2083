//! Configuration: `reductio.toml` at a workspace root (the CLI and the server read the same
//! file), LSP `initializationOptions` and `workspace/didChangeConfiguration` (same keys, JSON).
//!
//! ```toml
//! allocators = ["xmalloc", "pool_alloc"]    # return fresh memory (or NULL)
//! deallocators = ["xfree"]                  # free their first argument
//! noreturn = ["fatal", "die"]               # never return (a path through a call ends)
//! unknown-calls-escape = true               # a pointer passed to an unknown function escapes
//! exclude = ["third_party/**"]
//! check-on = "save"                         # or "change" (editor only)
//! probe-parameters = false                  # also probe parameters a function never assigns
//! include-dirs = ["include", "../common"]   # extra -I directories (relative to this file)
//! defines = ["HAVE_CONFIG_H", "LEVEL=2"]    # extra -D macros for every file
//! target = "linux"                          # or "windows", "macos", "freebsd", "any"
//! [budget]
//! transfers = 500                           # transfer-function applications per walk of a probe
//! regions = 50                              # size of the region set S per probe
//! [[suppress]]                              # silence judged reports (see `suppress`)
//! file = "vendor/**"                        # glob; also `function`, `variable`, `probe`,
//! reason = "third-party code"               #   `verdict`; `reason` is required
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    pub allocators: Vec<String>,
    pub deallocators: Vec<String>,
    /// Functions that never return, whatever their body (or lack of one) shows: a call of one
    /// ends the path. Corrects the inference of `never_returning` (issue 17).
    pub noreturn: Vec<String>,
    pub unknown_calls_escape: bool,
    pub exclude: Vec<String>,
    pub check_on: CheckOn,
    pub budget: Budget,
    /// Probe, at each return, the parameters the function never assigns (the paper does;
    /// off by default: losing what the caller passed is found by the caller's own probes).
    pub probe_parameters: bool,
    /// `[[suppress]]` entries: reports that match one are not diagnostics (`crate::suppress`).
    pub suppress: Vec<SuppressRule>,
    /// Build model: extra include directories (`-I`), relative to the config file's directory.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// Build model: extra macro definitions (`-D`), `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// Build model: the system the build targets (`linux`, `windows`, `macos`, `freebsd`, or
    /// `any` to analyse every system's `#ifdef` arms). Unset: the compile command's target,
    /// else Linux on x86-64.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<crate::build::Target>,
    /// Build model, not read from files: the directory of `reductio.toml` (relative
    /// `include-dirs` resolve against it; also a workspace root for quoted includes).
    #[serde(skip)]
    pub build_root: Option<std::path::PathBuf>,
    /// Build model, not read from files: the CLI's `--compile-commands FILE` (when set, no
    /// compile database is searched for).
    #[serde(skip)]
    pub compile_commands: Option<std::path::PathBuf>,
    /// Testing only (not read from files): run the worklist in the other order.
    #[serde(skip)]
    pub worklist_lifo: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            allocators: vec![],
            deallocators: vec![],
            noreturn: vec![],
            unknown_calls_escape: true,
            exclude: vec![],
            check_on: CheckOn::Save,
            budget: Budget::default(),
            probe_parameters: false,
            suppress: vec![],
            include_dirs: vec![],
            defines: vec![],
            target: None,
            build_root: None,
            compile_commands: None,
            worklist_lifo: false,
        }
    }
}

/// One `[[suppress]]` entry of `reductio.toml`: a report is suppressed when it matches every
/// field given. `file`, `function` and `variable` are globs (`*`, `?`, `**`, `[ab]`); `file` is
/// matched against the file's path and each of its trailing sub-paths, so `src/*.c` matches
/// `./src/a.c` and `/home/me/project/src/a.c`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SuppressRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// A probe kind: `assignment`, `allocation`, `free-field`, `return-local`, `scope-end`,
    /// `assigned-return`, `ignored-return`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
    /// `leak` or `unproved` (default: both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// Why the report is not a bug: required, so every suppression is reviewable.
    #[serde(default)]
    pub reason: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CheckOn {
    #[default]
    Save,
    Change,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Budget {
    /// Transfer-function applications per walk of a probe before it is abandoned (paper: 500).
    pub transfers: u32,
    /// Largest region set |S| before a probe is abandoned (paper: 50).
    pub regions: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            transfers: 500,
            regions: 50,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ConfigError {}

impl Config {
    /// Parse `reductio.toml` text. Unknown keys are errors: a typo must not silently turn a
    /// setting off.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let c: Config = toml::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
        c.validate()
    }

    /// Parse LSP settings (JSON with the same keys).
    pub fn from_json(value: serde_json::Value) -> Result<Config, ConfigError> {
        let c: Config = serde_json::from_value(value).map_err(|e| ConfigError(e.to_string()))?;
        c.validate()
    }

    fn validate(self) -> Result<Config, ConfigError> {
        if self.budget.transfers == 0 {
            return Err(ConfigError("budget.transfers must be at least 1".into()));
        }
        if self.budget.regions == 0 {
            return Err(ConfigError("budget.regions must be at least 1".into()));
        }
        for (key, names) in [
            ("allocators", &self.allocators),
            ("deallocators", &self.deallocators),
            ("noreturn", &self.noreturn),
        ] {
            for name in names {
                if name.is_empty()
                    || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    || name.starts_with(|c: char| c.is_ascii_digit())
                {
                    return Err(ConfigError(format!(
                        "`{name}` is not a C function name ({key})"
                    )));
                }
            }
        }
        for (i, rule) in self.suppress.iter().enumerate() {
            crate::suppress::check_rule(rule)
                .map_err(|e| ConfigError(format!("[[suppress]] entry {}: {e}", i + 1)))?;
        }
        for d in &self.defines {
            let name = d.split('=').next().unwrap_or("");
            if name.is_empty()
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || name.starts_with(|c: char| c.is_ascii_digit())
            {
                return Err(ConfigError(format!(
                    "`{d}` is not a macro definition (defines: NAME or NAME=VALUE)"
                )));
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_paper() {
        let c = Config::from_toml("").unwrap();
        assert_eq!(c.budget.transfers, 500);
        assert_eq!(c.budget.regions, 50);
        assert!(c.unknown_calls_escape);
    }

    #[test]
    fn full_file_parses() {
        let c = Config::from_toml(
            "allocators = [\"xmalloc\"]\ndeallocators = [\"xfree\"]\ncheck-on = \"change\"\n\
             [budget]\ntransfers = 100\n",
        )
        .unwrap();
        assert_eq!(c.allocators, ["xmalloc"]);
        assert_eq!(c.check_on, CheckOn::Change);
        assert_eq!(c.budget.transfers, 100);
        assert_eq!(c.budget.regions, 50);
    }

    #[test]
    fn bad_config_is_a_clear_error() {
        assert!(
            Config::from_toml("alocators = []")
                .unwrap_err()
                .0
                .contains("alocators")
        );
        assert!(Config::from_toml("[budget]\ntransfers = 0").is_err());
        assert!(Config::from_toml("allocators = [\"not a name\"]").is_err());
        assert!(Config::from_toml("check-on = \"never\"").is_err());
        assert!(Config::from_toml("allocators = 3").is_err());
    }

    #[test]
    fn target_parses_and_an_unknown_system_is_a_clear_error() {
        use crate::build::Target;
        assert_eq!(Config::from_toml("").unwrap().target, None);
        let c = Config::from_toml("target = \"windows\"\n").unwrap();
        assert_eq!(c.target, Some(Target::Windows));
        let j = Config::from_json(serde_json::json!({"target": "any"})).unwrap();
        assert_eq!(j.target, Some(Target::Any));
        let err = Config::from_toml("target = \"plan9\"").unwrap_err().0;
        assert!(err.contains("plan9") && err.contains("linux"), "{err}");
    }

    #[test]
    fn noreturn_parses_and_bad_values_are_clear_errors() {
        let c = Config::from_toml("noreturn = [\"fatal\", \"die\"]\n").unwrap();
        assert_eq!(c.noreturn, ["fatal", "die"]);
        let err = |t: &str| Config::from_toml(t).unwrap_err().0;
        assert!(err("noreturn = \"fatal\"").contains("noreturn"));
        assert!(
            err("noreturn = [\"fatal()\"]")
                .contains("`fatal()` is not a C function name (noreturn)")
        );
        assert!(err("no-return = [\"fatal\"]").contains("no-return"));
        let j = Config::from_json(serde_json::json!({"noreturn": ["die"]})).unwrap();
        assert_eq!(j.noreturn, ["die"]);
        assert!(Config::from_json(serde_json::json!({"noreturn": [3]})).is_err());
    }

    #[test]
    fn suppress_entries_parse_and_bad_ones_are_clear_errors() {
        let c = Config::from_toml(
            "[[suppress]]\nfile = \"src/*.c\"\nfunction = \"main\"\nvariable = \"buf\"\n\
             probe = \"scope-end\"\nverdict = \"leak\"\nreason = \"freed by exit\"\n",
        )
        .unwrap();
        assert_eq!(c.suppress.len(), 1);
        assert_eq!(c.suppress[0].function.as_deref(), Some("main"));
        let err = |t: &str| Config::from_toml(t).unwrap_err().0;
        assert!(err("[[suppress]]\nfunction = \"f\"\n").contains("reason"));
        assert!(err("[[suppress]]\nreason = \"x\"\n").contains("at least one"));
        assert!(err("[[suppress]]\nprobe = \"asignment\"\nreason = \"x\"\n").contains("asignment"));
        assert!(
            err("[[suppress]]\nfunction = \"f\"\nverdict = \"proved\"\nreason = \"x\"\n")
                .contains("proved")
        );
        assert!(err("[[suppress]]\nfile = \"src/[\"\nreason = \"x\"\n").contains("src/["));
        assert!(err("[[suppress]]\nfunc = \"f\"\nreason = \"x\"\n").contains("func"));
        assert!(err("[[suppress]]\nfunction = \"f\"\n").starts_with("[[suppress]] entry 1"));
    }
}
