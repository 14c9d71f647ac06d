extension SessionDriver {
    /// Test hook: edits the machine in place (no actions are produced).
    func mutateForTesting(_ body: (inout SessionMachine) -> Void) {
        withMachine(body)
    }
}
