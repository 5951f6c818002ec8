import { describe, expect, it } from "vitest";
import { pastedImagePath } from "../../src/ui/composer/pasted-image-path";

describe("a pasted image path", () => {
    it("is recognised plain, quoted, escaped or as a file URL", () => {
        expect(pastedImagePath("/tmp/shot.png")).toBe("/tmp/shot.png");
        expect(pastedImagePath("  docs/diagram.JPEG\n")).toBe("docs/diagram.JPEG");
        expect(pastedImagePath("'/tmp/my shot.webp'")).toBe("/tmp/my shot.webp");
        expect(pastedImagePath("/tmp/my\\ shot.gif")).toBe("/tmp/my shot.gif");
        expect(pastedImagePath("file:///tmp/a%20b.png")).toBe("/tmp/a b.png");
    });

    it("leaves sentences, several lines and other files as text", () => {
        expect(pastedImagePath("see the attached shot.png")).toBeNull();
        expect(pastedImagePath("/tmp/a.png\n/tmp/b.png")).toBeNull();
        expect(pastedImagePath("/tmp/logo.svg")).toBeNull();
        expect(pastedImagePath("src/app.ts")).toBeNull();
    });
});
