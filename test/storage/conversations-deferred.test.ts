import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConversationStore } from "../../src/storage/conversations";

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
    const root = mkdtempSync(join(tmpdir(), "north-conv-deferred-"));
    dirs.push(root);
    const dir = join(root, "conversations");
    return { dir, store: createConversationStore(dir) };
}

const user = (id: string, text: string) => ({ id, role: "user", content: text });

describe("a conversation started on its first entry", () => {
    it("leaves no file and nothing to continue when nothing was said", () => {
        const { store } = setup();
        const log = store.startOnFirstEntry({ repoRoot: "/repo", model: "m" });
        expect(log.id).toMatch(/^[0-9a-f]{6}$/);
        // A command's record or a model change alone does not make a conversation.
        expect(log.append({ type: "model_changed", model: "other" })).toEqual({ ok: true });
        expect(log.append({ type: "conversation_ended" })).toEqual({ ok: true });
        log.close();
        expect(existsSync(log.path)).toBe(false);
        expect(store.list()).toEqual([]);
        expect(store.latestForRepo("/repo")).toBeUndefined();
    });

    it("is created with the first entry, keeping what came before it, and ids never repeat", () => {
        const { store } = setup();
        const log = store.startOnFirstEntry({ repoRoot: "/repo", model: "m" });
        log.append({ type: "model_changed", model: "other" });
        const first = log.newEntryId();
        expect(existsSync(log.path)).toBe(false);
        log.append({ type: "entry_added", entry: user(first, "hello") });
        expect(existsSync(log.path)).toBe(true);
        expect(log.newEntryId()).not.toBe(first);
        log.close();
        const loaded = store.load(log.id);
        expect(loaded.ok && loaded.conversation.model).toBe("other");
        expect(loaded.ok && loaded.conversation.entries.map((e) => e.id)).toEqual([first]);
        expect(store.latestForRepo("/repo")?.id).toBe(log.id);
    });

    it("--continue passes over an empty conversation left on disk for the last real one", () => {
        const { store } = setup();
        const real = store.start({ repoRoot: "/repo", model: "m" });
        real.append({ type: "entry_added", entry: user("m1", "the real one") });
        real.close();
        // An older North created the file at start; a start-and-quit left it empty.
        store.start({ repoRoot: "/repo", model: "m" }).close();
        expect(store.list({ repoRoot: "/repo" })).toHaveLength(2);
        expect(store.latestForRepo("/repo")?.id).toBe(real.id);
    });
});
