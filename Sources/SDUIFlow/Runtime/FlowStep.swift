// FlowStep.swift - what a step of a flow session gives: the screen shown,
// the end of the flow, or why it stayed.

/// The result of a step.
public enum FlowStep: Sendable, Hashable {
    /// The flow shows this screen now.
    case screen(String)
    /// `next` on a screen without transitions: the flow completed.
    case completed
    /// `exit`: the flow ended early.
    case exited
    /// The step could not apply (a required answer is missing, no
    /// transition's condition held, no screen to go back to, the flow is
    /// over, an unknown action); the screen stays, and this says why.
    case stayed(String)
}
