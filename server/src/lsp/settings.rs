//! Editor settings: `initializationOptions` and `workspace/didChangeConfiguration` carry the
//! keys of `reductio.toml`, in JSON, and override the file's values.
//!
//! Accepted shapes, so that every editor's natural spelling works:
//! `{"reductio": {...}}` or the inner object alone; keys in kebab-case (`check-on`, as in the
//! TOML file) or camelCase (`checkOn`, as VS Code settings are written). `debounceMs` (how long
//! `checkOn = "change"` waits after the last keystroke) exists only here.

use crate::config::Config;
use serde_json::{Map, Value};
use std::time::Duration;

pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(200);

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientSettings {
    /// `reductio.toml` keys (kebab-case) that override the file.
    pub overrides: Map<String, Value>,
    pub debounce: Option<Duration>,
}

impl ClientSettings {
    /// Reads the settings object a client sent. `null` means "no settings".
    pub fn from_json(value: &Value) -> Result<ClientSettings, String> {
        let inner = match value {
            Value::Null => return Ok(ClientSettings::default()),
            Value::Object(o) => match o.get("reductio") {
                Some(Value::Object(r)) => r,
                Some(Value::Null) => return Ok(ClientSettings::default()),
                Some(_) => return Err("`reductio` settings must be an object".into()),
                None => o,
            },
            _ => return Err("settings must be an object".into()),
        };
        let mut overrides = Map::new();
        let mut debounce = None;
        for (k, v) in inner {
            let key = kebab(k);
            if key == "debounce-ms" {
                let ms = v
                    .as_u64()
                    .ok_or_else(|| format!("`{k}` must be a number of milliseconds"))?;
                debounce = Some(Duration::from_millis(ms.min(60_000)));
                continue;
            }
            if v.is_null() {
                continue;
            }
            let v = match (key.as_str(), v) {
                ("budget", Value::Object(b)) => {
                    Value::Object(b.iter().map(|(k, v)| (kebab(k), v.clone())).collect())
                }
                _ => v.clone(),
            };
            overrides.insert(key, v);
        }
        // Validate now, so that a bad value is reported when it arrives.
        Config::from_json(Value::Object(overrides.clone())).map_err(|e| e.0)?;
        Ok(ClientSettings {
            overrides,
            debounce,
        })
    }

    /// The configuration in force: the workspace's `reductio.toml` (or the defaults) with the
    /// client's keys on top (`budget` merged key by key).
    pub fn apply_to(&self, base: &Config) -> Result<Config, String> {
        let mut merged = match serde_json::to_value(base) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        for (k, v) in &self.overrides {
            match (merged.get_mut(k), v) {
                (Some(Value::Object(old)), Value::Object(new)) => {
                    for (bk, bv) in new {
                        old.insert(bk.clone(), bv.clone());
                    }
                }
                _ => {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
        Config::from_json(Value::Object(merged)).map_err(|e| e.0)
    }
}

/// `checkOn` → `check-on`; kebab-case keys are left alone.
fn kebab(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else if c == '_' {
            out.push('-');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CheckOn;
    use serde_json::json;

    #[test]
    fn both_spellings_and_wrapping() {
        let a = ClientSettings::from_json(&json!({"reductio": {"checkOn": "change",
            "unknownCallsEscape": false, "budget": {"transfers": 100}, "debounceMs": 50}}))
        .unwrap();
        let b = ClientSettings::from_json(&json!({"check-on": "change",
            "unknown-calls-escape": false, "budget": {"transfers": 100}, "debounce-ms": 50}))
        .unwrap();
        assert_eq!(a, b);
        let c = a.apply_to(&Config::default()).unwrap();
        assert_eq!(c.check_on, CheckOn::Change);
        assert!(!c.unknown_calls_escape);
        assert_eq!(c.budget.transfers, 100);
        assert_eq!(c.budget.regions, 50);
        assert_eq!(a.debounce, Some(Duration::from_millis(50)));
    }

    #[test]
    fn client_keys_override_the_file() {
        let file =
            Config::from_toml("allocators = [\"xmalloc\"]\n[budget]\nregions = 7\n").unwrap();
        let s = ClientSettings::from_json(&json!({"budget": {"transfers": 9}})).unwrap();
        let c = s.apply_to(&file).unwrap();
        assert_eq!(c.allocators, ["xmalloc"]);
        assert_eq!((c.budget.transfers, c.budget.regions), (9, 7));
    }

    #[test]
    fn bad_settings_are_errors() {
        assert!(ClientSettings::from_json(&json!({"chekOn": "save"})).is_err());
        assert!(ClientSettings::from_json(&json!({"checkOn": "never"})).is_err());
        assert!(ClientSettings::from_json(&json!(3)).is_err());
        assert_eq!(
            ClientSettings::from_json(&Value::Null).unwrap(),
            ClientSettings::default()
        );
    }
}
