//! The firmware's debouncer against the Pi's (`tengen_hal::driver::Debouncer`), the same
//! rule written twice: on any run of samples both report the same changes at the same
//! samples.

use proptest::prelude::*;
use tengen_firmware::debounce::Debouncer;
use tengen_firmware::Action;
use tengen_hal::driver::Debouncer as HalDebouncer;
use tengen_hal::ButtonAction;

proptest! {
    #[test]
    fn both_debouncers_report_the_same_changes(
        steps in prop::collection::vec((1u32..40, any::<bool>()), 1..300),
        window in 1u32..60,
    ) {
        let mut ours = Debouncer::new(window);
        let mut theirs = HalDebouncer::new(u64::from(window));
        let mut now = 0u32;
        for (dt, level) in steps {
            now += dt;
            let a = ours.sample(now, level).map(|(_, a)| match a {
                Action::Press => ButtonAction::Press,
                Action::Release => ButtonAction::Release,
            });
            let b = theirs.sample(u64::from(now), level);
            prop_assert_eq!(a, b, "at {} ms", now);
            prop_assert_eq!(ours.is_pressed(), theirs.is_pressed());
        }
    }
}
