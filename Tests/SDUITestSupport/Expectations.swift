// Expectations.swift - the expectations several suites share: this call throws an
// SDUIError of that category; this token is refused with that message.
import SDUI
import Testing

/// Expects `body` to throw an SDUIError of `category`, and returns it.
@discardableResult
public func expectError(_ category: SDUIError.Category, sourceLocation: SourceLocation = #_sourceLocation,
                        _ body: () throws -> Void) -> SDUIError? {
    do {
        try body()
        Issue.record("expected a \(category) error, got success", sourceLocation: sourceLocation)
    } catch let e as SDUIError {
        #expect(e.category == category, "\(e)", sourceLocation: sourceLocation)
        return e
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Expects verification of `compact` to fail with a signature error whose
/// message contains `fragment`.
public func expectRefused(_ verifier: TokenVerifier, _ compact: String, _ fragment: String,
                          sourceLocation: SourceLocation = #_sourceLocation) {
    let e = expectError(.signature, sourceLocation: sourceLocation) { _ = try verifier.verify(compact: compact) }
    #expect(e?.message.contains(fragment) == true, "\(e.map(String.init(describing:)) ?? "no error")",
            sourceLocation: sourceLocation)
}
