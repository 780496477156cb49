//! Every scenario in fixtures/scenarios: receipts and refusals step by step, then the final
//! file bytes and table body against fixtures/golden/<name>/.

mod common;

use mosaic_queue_core::BodyStatus;

#[test]
fn every_scenario_matches_its_receipts_and_golden_files() {
    let names = common::scenario_names();
    assert!(!names.is_empty());
    for name in names {
        let sc = common::load_scenario(&name);
        let queue = common::run(&sc);
        let bytes = queue.to_bytes();
        common::golden(&format!("{name}/queue.json"), &bytes);
        let body = queue.render_body();
        common::golden(&format!("{name}/body.md"), body.as_bytes());
        assert_eq!(queue.body_status(&body), BodyStatus::Current, "{name}");
    }
}
