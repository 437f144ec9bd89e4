//! AFL++ target: `tengen_fuzz::targets::command_checked` on each input (see `fuzz/run.sh`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = tengen_fuzz::targets::command_checked(data);
    });
}
