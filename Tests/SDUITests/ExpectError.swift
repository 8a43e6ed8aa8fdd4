// ExpectError.swift - the expectation shared by the SDUI suites: this call throws an SDUIError of that category.
import SDUI
import Testing

/// Expects `body` to throw an SDUIError of `category`, and returns it.
@discardableResult
func expectError(_ category: SDUIError.Category, sourceLocation: SourceLocation = #_sourceLocation,
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
