//! Parameter parsing and range checks that report *where* a value is wrong.
//!
//! A model parses its section of a grid cell (`params` or `dataset`, a JSON object built by the
//! coordinator from the YAML) with [`parse`], and checks ranges with the `check_*` helpers. Every
//! error carries a dotted path such as `params.lambda`, which the coordinator maps back to the
//! file, line and column the value came from.

use serde::de::DeserializeOwned;

/// A parameter that does not parse or is out of range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ParamError {
    /// Dotted path inside the cell, e.g. `params.lambda` or `dataset.structure`.
    pub path: String,
    /// What is wrong, including the allowed values or range.
    pub message: String,
}

impl ParamError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ParamError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Deserialize `value` (the cell's `section`) into `T`, reporting the failing field's path.
/// Use `#[serde(deny_unknown_fields)]` on `T` so unknown keys are refused with the allowed ones.
pub fn parse<T: DeserializeOwned>(
    section: &str,
    value: &serde_json::Value,
) -> Result<T, ParamError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let path = if inner == "." || inner.is_empty() {
            section.to_string()
        } else {
            format!("{section}.{inner}")
        };
        ParamError::new(path, e.into_inner().to_string())
    })
}

/// Split a tagged section (`{kind: <name>, ...}`) into its `kind` and the rest, for a
/// `match` on the kind and a [`parse`] of the rest into that kind's struct.
///
/// Errors (path `<section>` or `<section>.kind`, listing `kinds`, the allowed values): not an
/// object, no `kind`, or a `kind` that is not a string.
pub fn split_kind(
    section: &str,
    value: &serde_json::Value,
    kinds: &str,
) -> Result<(String, serde_json::Value), ParamError> {
    let obj = value
        .as_object()
        .ok_or_else(|| ParamError::new(section, "must be an object with a `kind` key"))?;
    let at = format!("{section}.kind");
    let kind = match obj.get("kind") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(ParamError::new(
                at,
                format!("{other} is not a string: allowed values are {kinds}"),
            ));
        }
        None => {
            return Err(ParamError::new(
                at,
                format!("missing: allowed values are {kinds}"),
            ));
        }
    };
    let mut rest = obj.clone();
    rest.remove("kind");
    Ok((kind, serde_json::Value::Object(rest)))
}

/// `x` in the open interval (0, 1).
pub fn check_open_unit(path: &str, x: f64) -> Result<(), ParamError> {
    if x > 0.0 && x < 1.0 {
        Ok(())
    } else {
        Err(ParamError::new(
            path,
            format!("{x} is out of range: allowed values are 0 < x < 1"),
        ))
    }
}

/// `x` strictly positive and finite.
pub fn check_positive(path: &str, x: f64) -> Result<(), ParamError> {
    if x > 0.0 && x.is_finite() {
        Ok(())
    } else {
        Err(ParamError::new(
            path,
            format!("{x} is out of range: allowed values are x > 0"),
        ))
    }
}

/// Integer `n` in `lo..=hi`.
pub fn check_range_usize(path: &str, n: usize, lo: usize, hi: usize) -> Result<(), ParamError> {
    if (lo..=hi).contains(&n) {
        Ok(())
    } else {
        Err(ParamError::new(
            path,
            format!("{n} is out of range: allowed values are {lo}..={hi}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct P {
        lambda: f64,
    }

    #[test]
    fn paths_name_the_field() {
        let e = parse::<P>("params", &serde_json::json!({"lambda": "x"})).unwrap_err();
        assert_eq!(e.path, "params.lambda");
        let e = parse::<P>("params", &serde_json::json!({"lambda": 0.5, "lamda": 1})).unwrap_err();
        assert!(
            e.message.contains("lamda") && e.message.contains("lambda"),
            "{e}"
        );
        assert!(check_open_unit("params.lambda", 1.0).is_err());
    }
}
