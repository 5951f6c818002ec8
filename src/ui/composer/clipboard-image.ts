/**
 * Ctrl+V: an image in the system clipboard is saved as a PNG file and
 * attached as a pasted image path is. Text in the clipboard is the
 * terminal's to paste (Ctrl+Shift+V, Cmd+V): North reads images only.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
    type ClipboardEnv,
    type ClipboardTool,
    type ToolRun,
    clipboardInstallHint,
    pasteImageTool,
    runClipboardTool,
} from "../terminal/clipboard";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type ImagePaste = { ok: true; path: string } | { ok: false; message: string };

export interface ClipboardImageDeps {
    clipboard: ClipboardEnv;
    run?: (
        tool: ClipboardTool,
        options: { read: true; env: NodeJS.ProcessEnv }
    ) => Promise<ToolRun>;
    /** Under which folder each paste gets a folder of its own (the temp dir when absent). */
    dir?: string;
}

const NO_IMAGE =
    "no image in the clipboard (paste text with your terminal's paste key, Ctrl+Shift+V)";

/** Reads a PNG from the clipboard and saves it; the file's path, or why there is none. */
export async function pasteClipboardImage(deps: ClipboardImageDeps): Promise<ImagePaste> {
    const tool = pasteImageTool(deps.clipboard);
    if (!tool) {
        return {
            ok: false,
            message: `cannot read images from the clipboard: ${clipboardInstallHint(deps.clipboard, true)}`,
        };
    }
    const run = await (deps.run ?? runClipboardTool)(tool, { read: true, env: deps.clipboard.env });
    // wl-paste and xclip fail when the clipboard holds no PNG.
    if (!run.ok || !run.stdout.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
        return { ok: false, message: NO_IMAGE };
    }
    try {
        // Left in the temp dir: the image is read only when the prompt is sent.
        const path = join(
            mkdtempSync(join(deps.dir ?? tmpdir(), "north-clipboard-")),
            "clipboard.png"
        );
        writeFileSync(path, run.stdout, { mode: 0o600 });
        return { ok: true, path };
    } catch (error) {
        return {
            ok: false,
            message: `could not save the clipboard's image: ${(error as Error).message}`,
        };
    }
}
