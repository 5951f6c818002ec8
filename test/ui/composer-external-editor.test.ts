import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createComposerState, composerKey } from "../../src/ui/composer/composer-state";
import { draftText, withAttachedImage, withEditedDraft } from "../../src/ui/composer/draft-edits";
import { editDraft } from "../../src/ui/composer/external-editor";

let dir: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-draft-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("editDraft", () => {
    it("hands the editor a file with the draft, returns what it saved without the final newline, and removes the file", () => {
        let seen = "";
        let path = "";
        const edited = editDraft(
            "before",
            (file) => {
                path = file;
                seen = readFileSync(file, "utf8");
                writeFileSync(file, "after\nmore\n");
                return { ok: true };
            },
            dir
        );
        expect(seen).toBe("before");
        expect(path.endsWith("PROMPT.md")).toBe(true);
        expect(edited).toEqual({ ok: true, text: "after\nmore" });
        expect(existsSync(dirname(path))).toBe(false);
    });

    it("keeps the draft when the editor fails, saying why", () => {
        const edited = editDraft(
            "before",
            (file) => {
                writeFileSync(file, "half");
                return { ok: false, error: "the editor (vi) exited with status 1" };
            },
            dir
        );
        expect(edited).toEqual({
            ok: false,
            message: "the editor (vi) exited with status 1; the draft is unchanged",
        });
    });
});

describe("the edited draft in the composer", () => {
    const typed = (text: string) =>
        composerKey(createComposerState(), { type: "text", text }, () => []).state;

    it("goes to the editor with paste chips written out, and comes back as one undo step with the cursor at the end", () => {
        const big = Array.from({ length: 12 }, (_, i) => `row ${i}`).join("\n");
        let state = typed("see ");
        state = composerKey(state, { type: "paste-start" }, () => []).state;
        state = composerKey(state, { type: "text", text: big }, () => []).state;
        state = composerKey(state, { type: "paste-end" }, () => []).state;
        expect(state.editor.text).not.toContain("row 3");
        expect(draftText(state)).toBe(`see ${big}`);
        const edited = withEditedDraft(state, "rewritten");
        expect(edited.editor).toEqual({ text: "rewritten", cursor: 9 });
        const undone = composerKey(
            edited,
            { type: "chord", letter: "z", ctrl: true, meta: false },
            () => []
        );
        expect(draftText(undone.state)).toBe(`see ${big}`);
    });

    it("keeps @ attachments the edited text still mentions", () => {
        const withImage = withAttachedImage(typed("look "), "/tmp/north-clipboard-x/clipboard.png");
        expect(withImage.editor.text).toBe("look @/tmp/north-clipboard-x/clipboard.png ");
        expect(withImage.attachments).toEqual(["/tmp/north-clipboard-x/clipboard.png"]);
        const edited = withEditedDraft(
            withImage,
            "now @/tmp/north-clipboard-x/clipboard.png please"
        );
        const sent = composerKey(
            edited,
            { type: "key", name: "return", ctrl: false, meta: false, shift: false },
            () => []
        );
        expect(sent.effect).toEqual({
            type: "submit",
            text: "now @/tmp/north-clipboard-x/clipboard.png please",
            attachments: ["/tmp/north-clipboard-x/clipboard.png"],
        });
    });
});
