/**
 * What the model gets from a `session/prompt`'s content blocks: the text as
 * written, a link to a file as an `@path` it can read (relative inside the
 * project), an attached file's text in the "Attached Files" block unless a
 * rule denies it, and a clear word for what North cannot take.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { promptContentOf } from "../../src/cli/acp/prompt-content";

const ROOT = "/home/me/project";
type ReadDenial = (absPath: string) => Promise<string | undefined>;
const noRules: ReadDenial = async () => undefined;

async function contentOf(blocks: ContentBlock[], readDenial: ReadDenial = noRules) {
    const built = await promptContentOf(blocks, ROOT, readDenial);
    if (!built.ok) throw new Error(built.error);
    return built.content;
}

describe("promptContentOf", () => {
    it("joins text and names linked files as @paths, relative inside the project", async () => {
        const content = await contentOf([
            { type: "text", text: "Compare" },
            { type: "resource_link", name: "a.ts", uri: `file://${ROOT}/src/a.ts` },
            { type: "resource_link", name: "b.ts", uri: "file:///opt/lib/b.ts" },
        ]);
        expect(content.text).toBe("Compare\n\n@src/a.ts\n\n@/opt/lib/b.ts");
        expect(content.attachedContext).toBeUndefined();
    });

    it("attaches an embedded file's text (the editor's buffer) under its path", async () => {
        const content = await contentOf([
            { type: "text", text: "Why does this fail?" },
            {
                type: "resource",
                resource: { uri: `file://${ROOT}/src/a.ts`, text: "export const a = 1;\n" },
            },
        ]);
        expect(content.attachedContext).toContain("# Attached Files");
        expect(content.attachedContext).toContain("## src/a.ts");
        expect(content.attachedContext).toContain("export const a = 1;");
        expect(content.notes).toEqual([]);
    });

    it("leaves out a file a Read rule denies, and binary resources, saying why", async () => {
        const content = await contentOf(
            [
                { type: "text", text: "look" },
                { type: "resource", resource: { uri: `file://${ROOT}/.env`, text: "KEY=secret" } },
                { type: "resource", resource: { uri: `file://${ROOT}/logo.bin`, blob: "AAAA" } },
            ],
            async (path) => (path.endsWith(".env") ? "Read(.env)" : undefined)
        );
        expect(content.attachedContext).toBeUndefined();
        expect(content.notes).toEqual([
            ".env was not attached: the rule Read(.env) keeps it from North",
            "logo.bin was not attached: North takes text files and images only",
        ]);
    });

    it("refuses audio, which North does not advertise", async () => {
        const built = await promptContentOf(
            [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }],
            ROOT,
            noRules
        );
        expect(built).toEqual({ ok: false, error: expect.stringContaining("no audio") });
    });

    it("does not send an image that is not one", async () => {
        const content = await contentOf([
            { type: "text", text: "see" },
            {
                type: "image",
                mimeType: "image/png",
                data: Buffer.from("not an image").toString("base64"),
                uri: `file://${ROOT}/shot.png`,
            },
        ]);
        expect(content.attachedImages).toEqual([]);
        expect(content.notes[0]).toMatch(/^the image was not sent: shot\.png/);
    });
});
