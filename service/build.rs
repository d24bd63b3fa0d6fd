//! Rebuild when a migration is added or changed: `sqlx::migrate!` (service/src/lib.rs) embeds
//! ../migrations at compile time, and cargo does not otherwise watch that folder.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
