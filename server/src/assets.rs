//! The explorer page, built into the binary: `/`, `/explorer.js` and `/explorer.css`.

use axum::http::header;
use axum::response::IntoResponse;

const INDEX: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/explorer.js");
const STYLE: &str = include_str!("../assets/explorer.css");

pub(crate) async fn index() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX)
}

pub(crate) async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
}

pub(crate) async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rafle_probe::draughts::Variant;

    /// The explorer reads a link's `variant=` as the command line and the API read
    /// `--variant` and `/api/v1/{variant}`: its table of names must be rafle_draughts' own.
    #[test]
    fn the_explorer_knows_the_variant_names_the_api_takes() {
        for variant in Variant::ALL {
            let rules = variant.rules();
            let entry = format!("    {}: {{\n", rules.name);
            let at = SCRIPT
                .find(&entry)
                .unwrap_or_else(|| panic!("no entry for {}", rules.name));
            let quoted: Vec<String> = rules.aliases.iter().map(|a| format!("'{a}'")).collect();
            let line = format!("aliases: [{}],", quoted.join(", "));
            let entry_end = at + SCRIPT[at..].find("\n    },").expect("the entry's end");
            assert!(
                SCRIPT[at..entry_end].contains(&line),
                "explorer.js: {} lacks {line}",
                rules.name
            );
        }
    }
}
