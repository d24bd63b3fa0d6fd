//! Helpers shared by the integration tests (each test crate uses what it needs).
#![allow(dead_code)]

pub mod ptxas;
pub mod testfloat;
