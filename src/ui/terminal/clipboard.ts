/**
 * The system clipboard from the chat: `/copy` writes text through OSC 52
 * (the terminal's own clipboard, which also works over ssh) and through the
 * first clipboard program found (pbcopy, wl-copy, xclip, xsel); Ctrl+V reads
 * an image through wl-paste, xclip or pngpaste. Which program fits is
 * decided from the platform, the display variables and the PATH, all
 * injected so tests need neither a display nor the programs.
 */
import { spawn } from "node:child_process";
import { findOnPath } from "../../util/find-on-path";
import { detectMultiplexer, throughMultiplexer } from "./passthrough";

/** Base64 of at most this many bytes goes out as OSC 52 (tmux and most terminals take 100 kB or more). */
export const OSC52_MAX_BASE64 = 100_000;
/** A clipboard program that has not exited by then is left to itself. */
const TOOL_TIMEOUT_MS = 3000;

/** Finds an executable on the PATH; null when there is none. */
export type Lookup = (name: string) => string | null;

export interface ClipboardEnv {
    env: NodeJS.ProcessEnv;
    platform: NodeJS.Platform;
    lookup: Lookup;
}

/** A program and its arguments. */
export interface ClipboardTool {
    name: string;
    args: string[];
}

export function pathLookup(env: NodeJS.ProcessEnv): Lookup {
    return (name) => findOnPath(name, env.PATH);
}

/** This process's platform, environment and PATH. */
export function systemClipboard(): ClipboardEnv {
    return { env: process.env, platform: process.platform, lookup: pathLookup(process.env) };
}

/** OSC 52 for `text`, wrapped so tmux or screen pass it on to the outer terminal. */
export function osc52(text: string, env: NodeJS.ProcessEnv): string {
    const sequence = `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
    return throughMultiplexer(sequence, detectMultiplexer(env));
}

/** Whether the base64 of `text` fits OSC 52's cap. */
export const fitsOsc52 = (text: string): boolean =>
    Math.ceil(Buffer.byteLength(text, "utf8") / 3) * 4 <= OSC52_MAX_BASE64;

/**
 * Terminals known to take OSC 52 writes by default; elsewhere (GNOME
 * Terminal, Konsole, the Linux console) it may be dropped silently.
 */
export function knownOsc52Terminal(env: NodeJS.ProcessEnv): boolean {
    if (env.TMUX || env.KITTY_WINDOW_ID || env.WEZTERM_PANE || env.ALACRITTY_SOCKET) return true;
    if (env.WT_SESSION) return true;
    const program = env.TERM_PROGRAM ?? "";
    if (["iTerm.app", "WezTerm", "ghostty", "tmux"].includes(program)) return true;
    const term = env.TERM ?? "";
    return /^(xterm-kitty|alacritty|foot|xterm-ghostty|wezterm)/.test(term);
}

/** The program `/copy` pipes the text into, by platform and display; null when none is installed. */
export function copyTool(at: ClipboardEnv): ClipboardTool | null {
    const candidates: ClipboardTool[] = [];
    if (at.platform === "darwin") candidates.push({ name: "pbcopy", args: [] });
    if (at.env.WAYLAND_DISPLAY) candidates.push({ name: "wl-copy", args: [] });
    if (at.env.DISPLAY) {
        candidates.push({ name: "xclip", args: ["-selection", "clipboard"] });
        candidates.push({ name: "xsel", args: ["--clipboard", "--input"] });
    }
    return candidates.find((tool) => at.lookup(tool.name) !== null) ?? null;
}

/** The program Ctrl+V reads a PNG from; null when none is installed. */
export function pasteImageTool(at: ClipboardEnv): ClipboardTool | null {
    const candidates: ClipboardTool[] = [];
    if (at.platform === "darwin") candidates.push({ name: "pngpaste", args: ["-"] });
    if (at.env.WAYLAND_DISPLAY) {
        candidates.push({ name: "wl-paste", args: ["--no-newline", "--type", "image/png"] });
    }
    if (at.env.DISPLAY) {
        candidates.push({
            name: "xclip",
            args: ["-selection", "clipboard", "-t", "image/png", "-o"],
        });
    }
    return candidates.find((tool) => at.lookup(tool.name) !== null) ?? null;
}

/** What to install for a clipboard program, said where none was found. */
export function clipboardInstallHint(at: ClipboardEnv, image: boolean): string {
    if (at.platform === "darwin")
        return image
            ? "install pngpaste (brew install pngpaste)"
            : "pbcopy is missing from the PATH";
    if (at.env.WAYLAND_DISPLAY) return "install wl-clipboard (wl-copy, wl-paste)";
    if (at.env.DISPLAY) return image ? "install xclip" : "install xclip or xsel";
    return "no display is set (no $WAYLAND_DISPLAY or $DISPLAY), so there is no system clipboard to reach";
}

export type ToolRun = { ok: true; stdout: Buffer } | { ok: false; error: string };

/** Runs a clipboard program, `input` on its stdin; its stdout (when `read`) comes back. */
export function runClipboardTool(
    tool: ClipboardTool,
    options: { input?: string; read?: boolean; env?: NodeJS.ProcessEnv }
): Promise<ToolRun> {
    return new Promise((resolve) => {
        // wl-copy and xclip stay behind to serve the selection: only stdin is a pipe, so their exit is enough.
        const child = spawn(tool.name, tool.args, {
            stdio: ["pipe", options.read ? "pipe" : "ignore", "ignore"],
            env: options.env,
        });
        const chunks: Buffer[] = [];
        child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
        const timer = setTimeout(() => {
            child.kill();
            resolve({
                ok: false,
                error: `${tool.name} did not finish in ${TOOL_TIMEOUT_MS / 1000} s`,
            });
        }, TOOL_TIMEOUT_MS);
        child.on("error", (error) => {
            clearTimeout(timer);
            resolve({ ok: false, error: `${tool.name}: ${error.message}` });
        });
        child.on("close", (code) => {
            clearTimeout(timer);
            if (code === 0) resolve({ ok: true, stdout: Buffer.concat(chunks) });
            else resolve({ ok: false, error: `${tool.name} exited with status ${code ?? "?"}` });
        });
        child.stdin?.on("error", () => undefined);
        child.stdin?.end(options.input ?? "");
    });
}
