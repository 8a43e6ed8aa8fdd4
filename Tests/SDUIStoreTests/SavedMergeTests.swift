// SavedMergeTests.swift - a commit's patches replayed on a state another
// writer saved: sets, removals, merges member by member, indexes, and the
// fall-back to the writer's own value of a key whose shape changed.
import SDUICore
@testable import SDUIStore
import Testing

@Suite struct SavedMergeTests {
    /// A patch.
    static func patch(_ op: StorePatch.Op, _ path: String, _ old: StoreValue?, _ new: StoreValue?) -> StorePatch {
        StorePatch(op: op, keyPath: path, oldValue: old, newValue: new)
    }

    @Test func setsAndRemovalsReplayOnTheSavedState() {
        let steps = SavedMerge.steps(of: [
            Self.patch(.set, "cart.total", nil, 9),
            Self.patch(.set, "user.name", nil, "Ada"),
            Self.patch(.remove, "flags.old", true, nil),
            Self.patch(.remove, "gone.twice", nil, nil),
        ])
        let base: [String: StoreValue] = ["cart": ["total": 7, "coupon": "X"], "flags": ["old": true, "new": true],
                                          "other": 1]
        let merged = SavedMerge.apply(steps, to: base, own: [:])
        #expect(merged == ["cart": ["total": 9, "coupon": "X"], "user": ["name": "Ada"], "flags": ["new": true],
                           "other": 1])
    }

    /// A merge writes the members it changed, so a member another writer
    /// wrote (and this one merely carried) keeps the other's value.
    @Test func aMergeReplaysTheMembersItChanged() {
        let steps = SavedMerge.steps(of: [
            Self.patch(.merge, "cfg", ["a": 1, "b": 2], ["a": 1, "b": 3, "c": 4]),
        ])
        #expect(steps.map(\.path.description) == ["cfg.b", "cfg.c"])
        let merged = SavedMerge.apply(steps, to: ["cfg": ["a": 10, "b": 2, "d": 5]], own: [:])
        #expect(merged == ["cfg": ["a": 10, "b": 3, "c": 4, "d": 5]])
        // Into nothing: the object is made.
        #expect(SavedMerge.apply(steps, to: [:], own: [:]) == ["cfg": ["b": 3, "c": 4]])
    }

    /// An append lands after the other writer's elements; other indexes
    /// replay as indexes (a removal removes the element at that index now,
    /// a set replaces it).
    @Test func appendsAppendAndIndexesReplayAsIndexes() {
        let steps = SavedMerge.steps(of: [
            Self.patch(.set, "items[2]", nil, "mine"),
            Self.patch(.remove, "items[0]", "a", nil),
            Self.patch(.set, "items[0]", "b", "B"),
        ])
        #expect(steps.map(\.append) == [true, false, false])
        let merged = SavedMerge.apply(steps, to: ["items": ["a", "b", "theirs"]], own: [:])
        #expect(merged == ["items": ["B", "theirs", "mine"]])
    }

    /// A step whose way another writer changed (the array it indexes is now
    /// a string; an object on its way is a number) gives its top-level key
    /// the committing store's own value, and that key's later steps are not
    /// replayed on top of it (the own value already holds them).
    @Test func aStepThatCannotApplyTakesTheWritersOwnValueOfItsKey() {
        let own: [String: StoreValue] = ["list": [2, 3], "deep": ["a": ["b": 1]], "kept": "mine"]
        let steps = SavedMerge.steps(of: [
            Self.patch(.set, "list[1]", 1, 3),
            Self.patch(.remove, "list[0]", 0, nil),
            Self.patch(.set, "deep.a.b", nil, 1),
            Self.patch(.set, "kept", nil, "mine"),
        ])
        let merged = SavedMerge.apply(steps, to: ["list": "a string now", "deep": ["a": 7], "kept": "theirs", "x": 1],
                                      own: own)
        #expect(merged == ["list": [2, 3], "deep": ["a": ["b": 1]], "kept": "mine", "x": 1])
    }
}
