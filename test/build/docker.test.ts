import { execFile, spawn, spawnSync } from "node:child_process";
import {
    chmodSync,
    cpSync,
    existsSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    rmSync,
    symlinkSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, type NorthRun } from "../kit/run-north";

// The Dockerfile's final stage must hold only what `npm pack` ships (dist/ bundles every
// dependency, so no node_modules) and run from that alone. The image itself is built only
// where a Docker daemon answers: CI installs Debian packages, and Docker is not one of them.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

interface Instruction {
    keyword: string;
    args: string;
}

/** The Dockerfile's instructions per stage (comments dropped, `\` continuations joined). */
function dockerfileStages(): Instruction[][] {
    const text = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    const logical = text
        .split("\n")
        .filter((line) => !/^\s*#/.test(line))
        .join("\n")
        .replace(/\\\n/g, " ");
    const stages: Instruction[][] = [];
    for (const line of logical.split("\n")) {
        const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
        if (!match) continue;
        const instruction = { keyword: match[1]!.toUpperCase(), args: match[2]!.trim() };
        if (instruction.keyword === "FROM") stages.push([]);
        stages.at(-1)?.push(instruction);
    }
    return stages;
}

/** `COPY [--from=X] SRC… DEST` → its stage and sources. */
function parseCopy(args: string): { from: string | undefined; sources: string[]; dest: string } {
    const words = args.split(/\s+/);
    const flags = words.filter((w) => w.startsWith("--"));
    const paths = words.filter((w) => !w.startsWith("--"));
    const from = flags.find((f) => f.startsWith("--from="))?.slice("--from=".length);
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/** The files `npm pack` would put in the tarball, relative to the package root. */
async function packedFiles(): Promise<string[]> {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: ROOT,
        env: { ...process.env, npm_config_update_notifier: "false" },
    });
    const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
    return packed!.files.map((f) => f.path);
}

/** What the final stage copies, relative to the unpacked package, with where it lands. */
function finalStageCopies(): Array<{ source: string; dest: string }> {
    const stages = dockerfileStages();
    const build = stages[0]!;
    const buildName = /\bAS\s+(\S+)/i.exec(build[0]!.args)?.[1];
    // The build stage unpacks `npm pack`'s tarball into one folder: the only source allowed.
    const unpack = build.find((i) => i.keyword === "RUN" && /npm pack/.test(i.args));
    const packDir = unpack && /tar\s+-xzf\s+\S+\s+-C\s+(\S+)/.exec(unpack.args)?.[1];
    if (!buildName || !packDir) throw new Error("the build stage must unpack `npm pack` output");
    const copies: Array<{ source: string; dest: string }> = [];
    for (const instruction of stages.at(-1)!) {
        if (instruction.keyword === "ADD") throw new Error("the final stage must not ADD");
        if (instruction.keyword !== "COPY") continue;
        const { from, sources, dest } = parseCopy(instruction.args);
        if (from !== buildName) {
            throw new Error(`final stage copies from outside the build stage: ${instruction.args}`);
        }
        for (const source of sources) {
            const relative = posix.relative(packDir, source);
            if (relative.startsWith("..") || relative === "") {
                throw new Error(`${source} is not inside the unpacked package ${packDir}`);
            }
            copies.push({ source: relative, dest });
        }
    }
    return copies;
}

/** True when a Docker daemon answers (a client without a daemon is common). */
function dockerAvailable(): boolean {
    const { status } = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], {
        stdio: "ignore",
        timeout: 20_000,
    });
    return status === 0;
}

function collect(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
    return new Promise<NorthRun>((resolve, reject) => {
        const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
        child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        child.on("error", reject);
        child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
}

describe("the Dockerfile", () => {
    let files: string[];
    beforeAll(async () => {
        if (!existsSync(join(ROOT, "dist", "cli.js"))) {
            throw new Error("dist/ is missing: run `node scripts/build.mjs` before this test");
        }
        files = await packedFiles();
    }, 60_000);

    it("copies into the final stage only what `npm pack` ships, and all North needs", () => {
        const copies = finalStageCopies();
        const shipped = (source: string) =>
            files.some((f) => f === source || f.startsWith(`${source}/`));
        for (const { source } of copies) expect(shipped(source), source).toBe(true);
        const sources = copies.map((c) => c.source);
        for (const needed of ["bin", "dist", "package.json", "LICENSE"]) {
            expect(sources).toContain(needed);
        }
        expect(sources.some((s) => s.includes("node_modules"))).toBe(false);
        expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    });

    it("runs `north` as a non-root user in a working directory for the repository", () => {
        const final = dockerfileStages().at(-1)!;
        const value = (keyword: string) => final.filter((i) => i.keyword === keyword).at(-1)?.args;
        expect(value("USER")).toBeDefined();
        expect(value("USER")).not.toMatch(/^(root|0)(:|$)/);
        expect(value("ENTRYPOINT")).toBe('["north"]');
        expect(value("WORKDIR")).toMatch(/^\//);
        const setup = final.filter((i) => i.keyword === "RUN").map((i) => i.args);
        expect(setup.join("\n")).toMatch(/ln -s \S*bin\/north\.js \/usr\/local\/bin\/north/);
        // The tools North calls: ripgrep for search, git for history.
        expect(setup.join("\n")).toMatch(/apt-get install[^\n]*\bgit\b[^\n]*\bripgrep\b/);
    });

    describe("the final stage's files alone", () => {
        let image: string;
        let server: FakeLlmServer;
        beforeAll(async () => {
            image = mkdtempSync(join(tmpdir(), "north-image-"));
            const copies = finalStageCopies();
            // The tarball's files, placed as the final stage places them under /opt/north.
            for (const file of files) {
                const top = file.split("/")[0]!;
                if (!copies.some((c) => c.source === top || c.source === file)) continue;
                mkdirSync(dirname(join(image, file)), { recursive: true });
                cpSync(join(ROOT, file), join(image, file));
            }
            server = await startFakeLlmServer();
        }, 60_000);
        afterAll(async () => {
            await server?.close();
            if (image) rmSync(image, { recursive: true, force: true });
        });

        it("print the version and answer a print session, without node_modules", async () => {
            expect(existsSync(join(image, "node_modules"))).toBe(false);
            const { env, home } = isolatedHome();
            const repo = join(home, "repo");
            mkdirSync(repo);
            writeFileSync(join(repo, "retry.ts"), "export const retries = 3;\n");
            try {
                const bin = join(image, "bin", "north.js");
                // As the image runs it: `north` on PATH, a symlink to the executable bin script.
                const onPath = join(image, "path");
                mkdirSync(onPath);
                chmodSync(bin, 0o755);
                symlinkSync(bin, join(onPath, "north"));
                const PATH = `${onPath}:${dirname(process.execPath)}:${env.PATH ?? ""}`;
                const version = await collect("north", ["--version"], { ...env, PATH }, repo);
                expect(version.stderr).toBe("");
                expect(version.stdout.trim()).toBe(pkg.version);
                server.enqueue(
                    { toolCalls: [{ id: "t1", name: "read_file", input: { path: "retry.ts" } }] },
                    { text: "retries is 3." }
                );
                const session = await collect(
                    process.execPath,
                    [bin, "-p", "how many retries?", "--output-format", "json"],
                    { ...env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl },
                    repo
                );
                expect(session.stderr).toBe("");
                expect(session.code).toBe(0);
                const result = JSON.parse(session.stdout) as { result: string; is_error: boolean };
                expect(result).toMatchObject({ result: "retries is 3.", is_error: false });
                expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("retries = 3");
            } finally {
                rmSync(home, { recursive: true, force: true });
            }
        });
    });
});

const HAS_DOCKER = dockerAvailable();
if (!HAS_DOCKER) {
    console.warn(
        "test/build/docker.test.ts: no Docker daemon answers `docker info`; the image build is skipped " +
            "(CI installs Debian packages only, and Docker is not one of them)"
    );
}

describe.skipIf(!HAS_DOCKER)("the Docker image (needs a Docker daemon and its registry)", () => {
    const tag = `north-test:${process.pid}`;
    let server: FakeLlmServer;
    let repo: string;
    beforeAll(async () => {
        await run("docker", ["build", "--tag", tag, "."], { cwd: ROOT, maxBuffer: 64 << 20 });
        server = await startFakeLlmServer();
        repo = mkdtempSync(join(tmpdir(), "north-docker-repo-"));
        writeFileSync(join(repo, "retry.ts"), "export const retries = 3;\n");
        // mkdtemp makes it private to this user; the container runs as another one.
        chmodSync(repo, 0o755);
    }, 900_000);
    afterAll(async () => {
        await server?.close();
        if (repo) rmSync(repo, { recursive: true, force: true });
        await run("docker", ["image", "rm", "--force", tag]).catch(() => undefined);
    }, 60_000);

    it("prints North's version", async () => {
        const { stdout } = await run("docker", ["run", "--rm", tag, "--version"]);
        expect(stdout.trim()).toBe(pkg.version);
    }, 120_000);

    it("answers a print session in the mounted repository, as the non-root user", async () => {
        server.enqueue(
            { toolCalls: [{ id: "t1", name: "read_file", input: { path: "retry.ts" } }] },
            { text: "retries is 3." }
        );
        // The host network: the fake server listens on the host's 127.0.0.1.
        const { stdout } = await run("docker", [
            "run",
            "--rm",
            "--network",
            "host",
            "--volume",
            `${repo}:/workspace:ro`,
            "--env",
            "ANTHROPIC_API_KEY=k",
            "--env",
            `ANTHROPIC_BASE_URL=${server.anthropicBaseUrl}`,
            tag,
            "-p",
            "how many retries?",
        ]);
        expect(stdout).toBe("retries is 3.\n");
        expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("retries = 3");
        const { stdout: user } = await run("docker", [
            "run",
            "--rm",
            "--entrypoint",
            "id",
            tag,
            "-u",
        ]);
        expect(user.trim()).not.toBe("0");
    }, 120_000);
});
