import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ScriptRun {
    code: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
}

/** Runs a TypeScript script (written to `dir`) in a real child process with the tsx loader. */
export function runScript(dir: string, script: string, args: string[]): Promise<ScriptRun> {
    const file = join(dir, "script.ts");
    writeFileSync(file, script);
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", file, ...args], { cwd: ROOT });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("error", reject);
        child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
}
