import { describe, expect, it } from "vitest";
import { layoutComposer } from "../../src/ui/composer/composer-layout";
import { editorOf } from "../../src/ui/composer/editor";

describe("a draft taller than the composer", () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");

    it("counts the lines cut off above the window that follows the cursor at the end", () => {
        const layout = layoutComposer(editorOf(text), 40, 6, true);
        expect(layout).toMatchObject({ total: 10, above: 4, below: 0 });
        expect(layout.lines[0]).toBe("line 5");
    });

    it("counts those below once the cursor moved up, and none when everything fits", () => {
        expect(layoutComposer({ text, cursor: 0 }, 40, 6, true)).toMatchObject({
            above: 0,
            below: 4,
        });
        expect(layoutComposer({ text, cursor: text.indexOf("line 3") }, 40, 6, true)).toMatchObject(
            {
                above: 0,
                below: 4,
            }
        );
        expect(layoutComposer(editorOf("one\ntwo"), 40, 6, true)).toMatchObject({
            above: 0,
            below: 0,
        });
    });
});
