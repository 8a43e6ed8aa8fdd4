// SavedMerge.swift - how a file-scope commit joins what other processes
// saved meanwhile: its change's patches are replayed on the file's state.
//
// Several processes may keep one file store.  Each saves under the file's
// lock, and what it saves is not its whole state (that would drop what the
// others wrote since it last read the file) but the file's current state
// with its own change replayed on it, patch by patch, in order:
//   - set:    the value is written at the patch's key path (missing objects
//             on the way are made, as `set` makes them);
//   - remove: what is at the key path is removed (nothing there: nothing);
//   - merge:  each member the merge changed is written into the object at
//             the key path, so members another process wrote stay.
// So a key path written by two processes holds the later commit's value
// (last writer wins, per key path), and key paths only one of them wrote
// keep that writer's value.  An append (a set at an index one past the
// end: nothing was there) appends to the array as the file holds it, so
// two writers' appends both stay; other indexes are replayed as indexes
// (two processes that remove `items[0]` each remove one element).  A patch that
// cannot be replayed because another process changed the shape on its way
// (removed the array it indexes, made an object a string) gives up on its
// top-level key: that member takes the committing store's own value, which
// holds all of its patches, and its later patches are not replayed.
import SDUICore

/// Replays a store's patches on a saved state (the file's essay).
enum SavedMerge {
    /// One replayable step: `value` written at `path`, or what is there
    /// removed (nil).
    struct Step: Sendable {
        let path: KeyPath
        let value: StoreValue?
        /// The path ends in an index where nothing was: append instead.
        var append = false
    }

    /// The steps that redo `patches`, in order.  A merge becomes one step
    /// per member it changed (members it left as they were are not steps,
    /// so another process's value of them stays).
    static func steps(of patches: [StorePatch]) -> [Step] {
        var out: [Step] = []
        for p in patches {
            guard let path = try? KeyPath(p.keyPath) else { continue }
            switch p.op {
            case .set:
                var step = Step(path: path, value: p.newValue)
                if p.oldValue == nil, case .index = path.components.last!, path.components.count > 1 {
                    step.append = true
                }
                out.append(step)
            case .remove:
                out.append(Step(path: path, value: nil))
            case .merge:
                guard case .object(let new)? = p.newValue else {
                    out.append(Step(path: path, value: p.newValue))
                    continue
                }
                let old = p.oldValue?.pathObject ?? [:]
                for (name, value) in new.sorted(by: { $0.key < $1.key }) where old[name] != value {
                    guard let member = try? KeyPath(components: path.components + [.key(name)]) else {
                        out.append(Step(path: path, value: p.newValue))
                        break
                    }
                    out.append(Step(path: member, value: value))
                }
            }
        }
        return out
    }

    /// `base` with `steps` replayed in order.  A step that cannot be
    /// replayed on `base` gives its top-level member `own`'s value (the
    /// committing store's, which holds every step) and ends the replay of
    /// that member's steps.
    static func apply(_ steps: [Step], to base: [String: StoreValue], own: [String: StoreValue]) -> [String: StoreValue] {
        var root = StoreValue.object(base)
        var settled = Set<String>()
        for step in steps {
            // A store's paths start with a member name (its root is an object).
            guard case .key(let top) = step.path.components[0], !settled.contains(top) else { continue }
            if let value = step.value {
                do { try appended(step, in: root).set(value, in: &root) } catch {
                    settled.insert(top)
                    var members = root.pathObject ?? [:]
                    members[top] = own[top]
                    root = .object(members)
                }
            } else {
                step.path.remove(from: &root)
            }
        }
        return root.pathObject ?? [:]
    }

    /// The path a step writes in `root`: its own, or for an append the
    /// index one past the end of the array there now.
    private static func appended(_ step: Step, in root: StoreValue) throws -> KeyPath {
        guard step.append else { return step.path }
        let parent = try KeyPath(components: Array(step.path.components.dropLast()))
        guard let items = parent.get(in: root)?.pathArray else { return step.path }
        return try KeyPath(components: parent.components + [.index(items.count)])
    }
}
