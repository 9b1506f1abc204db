//! TCP Reno: fast retransmit and fast recovery that ends with the first new ACK.
use super::{check_params, CongestionControl, Params, Recovery};

pub struct Reno;

impl Reno {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("reno", params, &[])?;
        Ok(Box::new(Reno))
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }
}
