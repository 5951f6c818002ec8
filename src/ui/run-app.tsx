import { render } from "ink";
import type { Mode } from "../agent/events";
import type { SessionState } from "../agent/session";
import { loadAttachments, renderAttachedFiles } from "../project/attachments";
import { createFileIndex } from "../project/file-index";
import { App } from "./app";
import type { ApprovalBridge } from "./approval-bridge";
import { createAppController } from "./controller";
import { type SessionPort, createDeferredSession } from "./deferred-session";
import { createAnsi } from "./render/ansi";
import { createLineCache } from "./render/line-cache";
import { loadMarkdown } from "./render/markdown";
import { historyActions } from "./transcript/history";
import {
    createTerminalGuard,
    installExitHooks,
    processTerminalPort,
} from "./terminal/terminal-guard";

export interface InteractiveOptions {
    /** The session, once the engine has loaded. */
    session: Promise<SessionPort>;
    /** What the status line shows until then. */
    initialState: SessionState;
    bridge: ApprovalBridge;
    repoRoot: string;
    projectName: string;
    mode: Mode;
    altScreen: boolean;
    colors: boolean;
    /** Sent as soon as the app is up (`north "PROMPT"`). */
    initialPrompt?: string;
    /** Shown first in the transcript (setup warnings, resume note). */
    notices: Array<{ level: "info" | "warning"; text: string }>;
    /** Ends the conversation: disposes tools, closes the log. */
    close(): void;
    /** Routes later warnings (e.g. the log could not be written) into the transcript. */
    bindWarnings?(show: (message: string) => void): void;
}

/** How long an interrupted run may take to wind down on exit. */
const STOP_GRACE_MS = 3000;

/**
 * Runs the TUI until the user quits. The terminal is restored on every way
 * out, and the conversation is closed (running commands killed) first.
 */
export async function runInteractiveApp(options: InteractiveOptions): Promise<number> {
    const session = createDeferredSession(options.initialState, options.session);
    const ansi = createAnsi(options.colors);
    const cache = createLineCache(ansi);
    const fileIndex = createFileIndex(options.repoRoot);
    const controller = createAppController({
        session,
        bridge: options.bridge,
        loadAttachments: async (paths) => {
            // The symbol parsers load with the first attachment, not at start-up.
            const { outlineOf } = await import("./attachment-outline");
            return renderAttachedFiles(await loadAttachments(options.repoRoot, paths, outlineOf));
        },
    });
    for (const notice of options.notices) {
        controller.store.dispatch({ type: "notice", level: notice.level, text: notice.text });
    }
    session.ready.then(
        (real) => {
            for (const action of historyActions(real.messages)) controller.store.dispatch(action);
            // `north "PROMPT"`: sent once the engine is up, after any resumed history.
            if (options.initialPrompt) controller.submit(options.initialPrompt, [], options.mode);
        },
        (error: unknown) =>
            controller.store.dispatch({
                type: "notice",
                level: "error",
                text: `North could not start the session: ${(error as Error).message}`,
            })
    );
    options.bindWarnings?.((text) =>
        controller.store.dispatch({ type: "notice", level: "warning", text })
    );

    const guard = createTerminalGuard(processTerminalPort(), { altScreen: options.altScreen });
    let unmount: (() => void) | null = null;
    const hooks = installExitHooks(
        guard,
        () => {
            // Ink's last frame must land before the screen is switched back.
            unmount?.();
            controller.dispose();
            options.close();
        },
        (message) => void process.stderr.write(message)
    );
    guard.enter();
    const instance = render(
        <App
            controller={controller}
            session={session}
            bridge={options.bridge}
            ansi={ansi}
            cache={cache}
            projectName={options.projectName}
            initialMode={options.mode}
            altScreen={options.altScreen}
            fileIndex={fileIndex}
        />,
        {
            exitOnCtrlC: false,
            patchConsole: false,
            incrementalRendering: true,
            maxFps: 30,
        }
    );
    unmount = () => instance.unmount();
    // After the first frame: answers are drawn as Markdown from here on.
    void loadMarkdown().then(() => controller.store.dispatch({ type: "redraw" }));

    let failure: unknown = null;
    try {
        await instance.waitUntilExit();
    } catch (error) {
        failure = error;
    }
    controller.cancel();
    await Promise.race([
        controller.idle(),
        new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref()),
    ]);
    controller.dispose();
    options.close();
    guard.restore();
    hooks.dispose();
    if (failure) {
        const text =
            failure instanceof Error ? (failure.stack ?? failure.message) : String(failure);
        process.stderr.write(`north: unexpected error: ${text}\n`);
        return 1;
    }
    return 0;
}
