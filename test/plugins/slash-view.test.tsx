/**
 * `/plugin`'s view without a terminal: a long list draws only the rows on
 * screen and scrolls with the selection; `y` installs from the inventory,
 * Esc there installs nothing; every action is an engine op.
 */
import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { OpOf, OpReply, OpType, PluginsListing } from "../../src/agent/protocol";
import {
    CONFIRM_HINT,
    PLUGINS_HINTS,
    PluginsDialog,
    type PluginsPort,
} from "../../src/ui/plugins/plugins-dialog";
import { renderToFakeTerminal } from "../ui/ink-harness";

const unmounts: Array<() => void> = [];
afterEach(() => {
    for (const unmount of unmounts.splice(0)) unmount();
});

function listingOf(count: number): PluginsListing {
    return {
        marketplaces: [{ name: "big", source: "/srv/big", updatedAt: "2026-01-01T00:00:00Z" }],
        available: Array.from({ length: count }, (_, i) => ({
            id: `p${String(i).padStart(3, "0")}@big`,
            name: `p${i}`,
            marketplace: "big",
            installed: false,
        })),
        installed: [],
        errors: [],
    };
}

/** Answers the view's ops as the host would, and notes each one. */
function fakePort(listing: PluginsListing): PluginsPort & { ops: string[] } {
    const ops: string[] = [];
    const reply = (op: OpOf<OpType>): unknown => {
        ops.push(op.type === "plugin_prepare" ? `prepare ${op.id}` : op.type);
        switch (op.type) {
            case "plugins":
                return listing;
            case "plugin_prepare":
                return {
                    ok: true,
                    token: "t1",
                    id: op.id,
                    update: false,
                    inventory: {},
                    lines: [`${op.id} from big`, "  hook SessionStart: ./run.sh"],
                    needsApproval: true,
                };
            case "plugin_commit":
                return { message: "installed it" };
            case "plugin_discard":
                return { message: "nothing installed" };
            default:
                return { message: "done" };
        }
    };
    return {
        ops,
        submit: <T extends OpType>(op: OpOf<T>) => Promise.resolve(reply(op) as OpReply<T>),
    };
}

describe("the plugins view", () => {
    it("draws only what fits of a long list and scrolls with the selection", async () => {
        const listing = listingOf(200);
        const port = fakePort(listing);
        const view = renderToFakeTerminal(
            <PluginsDialog
                initial={listing}
                port={port}
                width={78}
                maxRows={12}
                active
                onClose={() => undefined}
            />,
            { columns: 80, rows: 30 }
        );
        unmounts.push(() => view.instance.unmount());
        await view.shows(PLUGINS_HINTS[0]);
        await view.type("\t");
        await view.shows(PLUGINS_HINTS[1]);
        let frame = stripVTControlCharacters(view.lastFrame());
        const rows = frame.split("\n").filter((row) => /p\d{3}@big/.test(row));
        expect(rows.length).toBeLessThanOrEqual(7);
        expect(frame).toMatch(/↓ \d+ more/);
        expect(frame).toContain("Available (200)");

        for (let i = 0; i < 40; i++) await view.type("\x1b[B");
        await expect
            .poll(() => stripVTControlCharacters(view.lastFrame()), { timeout: 10_000 })
            .toMatch(/› +p040@big/);
        frame = stripVTControlCharacters(view.lastFrame());
        expect(frame).not.toContain("p000@big");
        expect(frame).toMatch(/↑ \d+ more/);

        // Enter: the inventory; Esc installs nothing.
        await view.type("\r");
        await view.shows(CONFIRM_HINT);
        expect(stripVTControlCharacters(view.lastFrame())).toContain("hook SessionStart: ./run.sh");
        await view.type("\x1b");
        await view.shows("nothing installed");
        // y installs.
        await view.shows(PLUGINS_HINTS[1]);
        await view.type("\r");
        await view.shows(CONFIRM_HINT);
        await view.type("y");
        await view.shows("installed it");
        expect(port.ops.filter((op) => op !== "plugins")).toEqual([
            "prepare p040@big",
            "plugin_discard",
            "prepare p040@big",
            "plugin_commit",
        ]);
    });
});
