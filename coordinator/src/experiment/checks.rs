//! Checks of an experiment file beyond its schema: the run name, the report kinds and monitored
//! scalars against the registries, and numbers JSON cannot hold.

use std::collections::HashMap;

use yaml_serde::Value;

use super::{CheckEntry, Ctx, ExperimentError, ExperimentFile, key_str};
use causeway_papers::ParamError;
use causeway_results::check::{Expected, ExpectedValue};

/// Refuse a `report:` kind that causeway does not know or that reads another model's runs, and a
/// `monitor:` scalar the model does not trace, naming the YAML position and the allowed values.
pub(super) fn check_report_and_monitor(
    ctx: &Ctx<'_>,
    ef: &ExperimentFile,
    model: &dyn causeway_papers::Model,
) -> Result<(), ExperimentError> {
    for (i, kind) in ef.report.iter().enumerate() {
        let k = causeway_results::report::report_kind(kind)
            .map_err(|e| ctx.err_at(&format!("report[{i}]"), format!("report: {e}")))?;
        // `*`: a kind that reads every model's runs (the `sbc` report; `sbc::check_report`
        // refuses it without an `sbc:` block in the chosen profile).
        if k.model == "*" {
            continue;
        }
        if k.model != ef.model {
            return Err(ctx.err_at(
                &format!("report[{i}]"),
                format!(
                    "report: {kind:?} reads runs of model {}, not {}",
                    k.model, ef.model
                ),
            ));
        }
    }
    for (i, name) in ef.monitor.iter().enumerate() {
        if !model.monitors().contains(&name.as_str()) {
            return Err(ctx.err_at(
                &format!("monitor[{i}]"),
                format!(
                    "monitor: {name:?} is not traced by model {}: allowed values are {}",
                    ef.model,
                    model.monitors().join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// `name:` is the default run directory `runs/<name>/`: it must be one plain path component
/// (letters, digits, `_`, `-`, `.`; not `.` or `..`), so a run cannot write outside `runs/`.
pub(super) fn check_name(ctx: &Ctx<'_>, name: &str) -> Result<(), ExperimentError> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if plain {
        Ok(())
    } else {
        Err(ctx.err_at(
            "name",
            format!(
                "name: {name:?} is not a plain directory name: use letters, digits, '_', '-' and \
                 '.' (not '.' or '..'); it names the run directory runs/<name>/"
            ),
        ))
    }
}

/// The YAML path of the first non-finite number in `v` (paths as [`Positions`] names them).
/// The path is built only down to that number: every cell of a grid is checked, and almost
/// none has one.
pub(super) fn non_finite(v: &Value, path: &str) -> Option<String> {
    match v {
        Value::Number(n) if n.as_f64().is_some_and(|x| !x.is_finite()) => Some(path.to_string()),
        Value::Sequence(s) => s
            .iter()
            .enumerate()
            .find(|(_, x)| has_non_finite(x))
            .and_then(|(i, x)| non_finite(x, &format!("{path}[{i}]"))),
        Value::Mapping(m) => m
            .iter()
            .find(|(_, x)| has_non_finite(x))
            .and_then(|(k, x)| non_finite(x, &format!("{path}.{}", key_str(k)))),
        Value::Tagged(t) => non_finite(&t.value, path),
        _ => None,
    }
}

/// Whether `v` holds a non-finite number anywhere.
fn has_non_finite(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(|x| !x.is_finite()),
        Value::Sequence(s) => s.iter().any(has_non_finite),
        Value::Mapping(m) => m.values().any(has_non_finite),
        Value::Tagged(t) => has_non_finite(&t.value),
        _ => false,
    }
}

/// Validate the `checks:` entries (scalars only, a finite tolerance ≥ 0).
pub(super) fn checks(
    ctx: &Ctx<'_>,
    entries: &[CheckEntry],
) -> Result<Vec<Expected>, ExperimentError> {
    let scalar = |v: &Value, ypath: &str| -> Result<String, ExperimentError> {
        match v {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            _ => Err(ctx.err_at(ypath, "must be a number or a string")),
        }
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, c) in entries.iter().enumerate() {
        let at = |key: &str| format!("checks[{i}].{key}");
        if c.table.is_empty() {
            return Err(ctx.err_at(&at("table"), "table must name a file under tables/"));
        }
        if !(c.tolerance.is_finite() && c.tolerance >= 0.0) {
            return Err(ctx.err_at(&at("tolerance"), "tolerance must be a finite number ≥ 0"));
        }
        let expected = match &c.expected {
            Value::Number(n) => match n.as_f64() {
                Some(x) if x.is_finite() => ExpectedValue::Number(x),
                _ => return Err(ctx.err_at(&at("expected"), "expected must be finite")),
            },
            other => ExpectedValue::Text(scalar(other, &at("expected"))?),
        };
        out.push(Expected {
            table: c.table.clone(),
            row: scalar(&c.row, &at("row"))?,
            column: c.column.clone(),
            expected,
            tolerance: c.tolerance,
        });
    }
    Ok(out)
}

/// Map a model's ParamError (a cell path) back to where its value was written.
pub(super) fn located(
    ctx: &Ctx<'_>,
    origins: &HashMap<String, String>,
    e: ParamError,
    axes: &serde_json::Map<String, serde_json::Value>,
) -> ExperimentError {
    // The longest prefix of the path that came from an axis or a profile override wins;
    // otherwise the base section.
    let mut p = e.path.clone();
    let yaml_path = loop {
        if let Some(o) = origins.get(&p) {
            let rest = &e.path[p.len()..];
            break format!("{o}{rest}");
        }
        match p.rfind(['.', '[']) {
            Some(cut) => p.truncate(cut),
            None => break e.path.clone(),
        }
    };
    let mut msg = format!("{}: {}", e.path, e.message);
    if !axes.is_empty() {
        let cell: Vec<String> = axes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        msg.push_str(&format!(" (in the grid cell {})", cell.join(", ")));
    }
    ctx.err_at(&yaml_path, msg)
}

/// The YAML path an error about key `key` of block `block` (`sbc`, `until`) points at: the
/// profile's (`pp`) when it writes the key, else the file's, else the block that is there.
pub(super) fn block_key_path(
    ctx: &Ctx<'_>,
    pp: &str,
    block: &str,
    (in_profile, in_file): (bool, bool),
    key: &str,
) -> String {
    let p = format!("{pp}.{block}.{key}");
    if in_profile && ctx.pos.get(&p).is_some() {
        p
    } else if ctx.pos.get(&format!("{block}.{key}")).is_some() {
        format!("{block}.{key}")
    } else if in_profile && !in_file {
        format!("{pp}.{block}")
    } else {
        block.to_string()
    }
}
