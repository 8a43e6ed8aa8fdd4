// StoreValues.swift - the values of one key path over time, as an AsyncSequence.

/// The value at one key path now, then after each change that alters it.
///
/// Ends when the consumer stops iterating (its task is cancelled or the
/// sequence is dropped): the store then forgets the observer.  Values are
/// buffered without bound while the consumer is slow.
public struct StoreValues: AsyncSequence, Sendable {
    /// The value, nil when the path holds none.
    public typealias Element = StoreValue?

    let stream: AsyncStream<StoreValue?>

    /// The iterator.
    public func makeAsyncIterator() -> AsyncStream<StoreValue?>.Iterator {
        stream.makeAsyncIterator()
    }
}

/// The changes that touch a set of key paths, as an AsyncSequence.
///
/// Ends when the consumer stops iterating; changes are buffered without
/// bound while the consumer is slow.
public struct StoreChanges: AsyncSequence, Sendable {
    /// One complete change (a mutation or a whole transaction).
    public typealias Element = StoreChange

    let stream: AsyncStream<StoreChange>

    /// The iterator.
    public func makeAsyncIterator() -> AsyncStream<StoreChange>.Iterator {
        stream.makeAsyncIterator()
    }
}
