//! Temporary shim until the ArviZ-matching diagnostics land (replaced by diagnostics/).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Diagnostics {
    pub rhat: f64,
    pub ess_bulk: f64,
    pub ess_tail: f64,
}
pub fn diagnose(_c: &[&[f64]]) -> Result<Diagnostics, String> {
    Err("diagnostics not merged yet".into())
}
pub fn diagnose_file(_p: &std::path::Path) -> Result<Vec<(String, Diagnostics)>, String> {
    Err("diagnostics not merged yet".into())
}
pub fn to_json(_v: &[(String, Diagnostics)]) -> String {
    String::new()
}
pub fn to_table(_v: &[(String, Diagnostics)]) -> String {
    String::new()
}
