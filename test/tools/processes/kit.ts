/**
 * A shell service on a temp project for the background process tests, and
 * waits for states (a pid gone, a line read), never fixed pauses.
 */
import { readFileSync } from "node:fs";
import { expect, vi } from "vitest";
import {
    type BackgroundShellService,
    type ShellServiceOptions,
    createShellService,
} from "../../../src/tools/shell-service";
import { type TempRepo, makeRepo } from "../fixtures";

export interface Kit {
    repo: TempRepo;
    shell: BackgroundShellService;
    spillDir: string;
}

const open: Kit[] = [];

/** A service with short stop grace (the tests never measure it) and a spill folder of its own. */
export async function makeKit(options: ShellServiceOptions = {}): Promise<Kit> {
    const repo = await makeRepo({ "README.md": "fixture\n" });
    const spillDir = `${repo.root}-spill`;
    const shell = createShellService(repo.root, {
        spillDir,
        ...options,
        processLimits: { stopGraceMs: 300, ...options.processLimits },
    });
    const kit = { repo, shell, spillDir };
    open.push(kit);
    return kit;
}

/** For afterEach: every service disposed (its processes killed), every temp folder removed. */
export async function disposeKits(): Promise<void> {
    for (const kit of open.splice(0)) {
        kit.shell.dispose();
        await kit.repo.cleanup();
    }
}

/** True while `pid` runs; a zombie counts as gone. */
export function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const state = stat.charAt(stat.lastIndexOf(")") + 2);
        return state !== "Z" && state !== "X";
    } catch {
        return false;
    }
}

/** Waits (generously: the machine may be loaded) until `check` passes. */
export function until(check: () => void, timeout = 20_000): Promise<void> {
    return vi.waitFor(check, { timeout, interval: 25 });
}

export async function untilGone(pid: number): Promise<void> {
    await until(() => expect(isAlive(pid), `pid ${pid} still runs`).toBe(false));
}

/** Reads a pid a command wrote into the project. */
export async function pidFrom(kit: Kit, file: string): Promise<number> {
    let pid = 0;
    await until(() => {
        pid = Number(readFileSync(`${kit.repo.root}/${file}`, "utf8").trim());
        expect(pid).toBeGreaterThan(0);
    });
    return pid;
}
