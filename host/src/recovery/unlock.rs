//! `unlock [--check-gate]`: removes a dead or mismatched queue lock under the unlock gate, or
//! with `--check-gate` only classifies a stale gate. It never takes the queue lock, and it does
//! not need a valid queue.json, since a killed recovery may be what left the lock.

use crate::reply::{Replied, Reply};
use crate::store::file_verbs;
use crate::store::lock::Class;
use crate::store::session;
use crate::store::world::World;

/// `unlock [--check-gate]`.
pub fn unlock(check_gate: bool, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    let world = World::real();
    if check_gate {
        reply.line(&gate_line(file_verbs::check_gate(world, &paths)?))?;
    } else {
        reply.line(&format!(
            "ok unlock: {}",
            file_verbs::unlock(world, &paths)?
        ))?;
    }
    Ok(())
}

/// What `--check-gate` found, and what a person may do about it.
fn gate_line(class: Option<Class>) -> String {
    let Some(class) = class else {
        return String::from(
            "ok unlock --check-gate: no unlock gate (.git/mosaic-queue.unlock does not exist)",
        );
    };
    let advice = match class {
        Class::Dead(_) | Class::Rebooted(_) | Class::Mismatch(_) => {
            "it may be removed by hand (rm .git/mosaic-queue.unlock) once no queue command is running"
        }
        Class::Live(_) => "an unlock is running; leave the gate, it goes when that command ends",
        Class::Unknown(_) | Class::Invalid(_) => {
            "this host cannot check its holder, so this is no clearance to remove it: a person must make sure no queue command is running anywhere"
        }
    };
    format!("ok unlock --check-gate: gate {class}; {advice}")
}
