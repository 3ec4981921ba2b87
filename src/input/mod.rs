//! Input discovery (stub).
