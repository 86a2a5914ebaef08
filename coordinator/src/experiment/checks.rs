//! Checks of an experiment file beyond its schema: the run name, the report kinds and monitored
//! scalars against the registries, and numbers JSON cannot hold.

use serde_yaml::Value;

use super::{Ctx, ExperimentError, ExperimentFile, key_str};
use causeway_papers::registry;

/// Refuse a `report:` kind that causeway does not know or that reads another model's runs, and a
/// `monitor:` scalar the model does not trace, naming the YAML position and the allowed values.
pub(super) fn check_report_and_monitor(
    ctx: &Ctx<'_>,
    ef: &ExperimentFile,
    model: &dyn registry::Model,
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
pub(super) fn non_finite(v: &Value, path: &str) -> Option<String> {
    match v {
        Value::Number(n) if n.as_f64().is_some_and(|x| !x.is_finite()) => Some(path.to_string()),
        Value::Sequence(s) => s
            .iter()
            .enumerate()
            .find_map(|(i, x)| non_finite(x, &format!("{path}[{i}]"))),
        Value::Mapping(m) => m
            .iter()
            .find_map(|(k, x)| non_finite(x, &format!("{path}.{}", key_str(k)))),
        Value::Tagged(t) => non_finite(&t.value, path),
        _ => None,
    }
}
