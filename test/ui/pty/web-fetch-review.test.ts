/**
 * The web_fetch review in the chat: it shows the URL and its host; `r`
 * fetches once, `a` allows the host for the rest of the session (listed by
 * /permissions), and there is no "auto all". Needs `npm run build` first.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerReview, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;

let session: NorthPtySession | undefined;
let web: http.Server;
let base: string;
let webHits: string[];
let configDir: string;

beforeEach(async () => {
    webHits = [];
    web = http.createServer((req, res) => {
        webHits.push(req.url ?? "");
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<h1>Changelog</h1><p>Version two.</p>");
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    configDir = mkdtempSync(join(tmpdir(), "north-web-config-"));
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
        join(configDir, "config.json"),
        JSON.stringify({ webFetch: { allowPrivateNetwork: true } })
    );
});

afterEach(async () => {
    await session?.dispose();
    session = undefined;
    web.closeAllConnections();
    await new Promise((resolve) => web.close(resolve));
    rmSync(configDir, { recursive: true, force: true });
});

const fetchCall = (path: string) => ({ name: "web_fetch", input: { url: `${base}${path}` } });

describe("the web_fetch review", () => {
    it(
        "fetches once with 1, allows the host for the session with 2, and shows the size fetched",
        async () => {
            session = await startNorthSession({ env: { NORTH_CONFIG_DIR: configDir } });
            const { north, server, submit } = session;
            const host = new URL(base).host;

            server.enqueue({ toolCalls: [fetchCall("/one")] }, { text: "First read." });
            await submit("read one");
            await north.waitForText("Fetch this page?");
            const review = north.screenText();
            expect(review).toContain(`GET ${base}/one`);
            expect(review).toContain("host 127.0.0.1");
            expect(review).toContain("1. Yes, fetch it once");
            expect(review).toContain("2. Yes, and don't ask again for `127.0.0.1` in this session");
            expect(review).toContain("3. No, and tell North what to do instead");
            expect(review).not.toContain("auto all");
            expect(webHits).toEqual([]);
            await answerReview(north, { option: 1 });
            await north.waitForText("First read.");
            expect(north.screenText()).toMatch(new RegExp(`web_fetch ${host}/one - 37 B`));
            expect(session.lastRequest()).toContain("# Changelog");

            // Once is not always: the next fetch is asked again.
            server.enqueue({ toolCalls: [fetchCall("/two")] }, { text: "Second read." });
            await submit("read two");
            await north.waitForText(`GET ${base}/two`);
            await answerReview(north, { option: 2 });
            await north.waitForText("Second read.");

            // The host is allowed now: another page of it is fetched unasked.
            server.enqueue({ toolCalls: [fetchCall("/three")] }, { text: "Third read." });
            await submit("read three");
            await north.waitForText("Third read.");
            expect(webHits).toEqual(["/one", "/two", "/three"]);

            await submit("/permissions");
            await north.waitForText("WebFetch(domain:127.0.0.1)");
            expect(north.screenText()).toContain("this session");
        },
        TIMEOUT
    );

    it(
        "Esc and a reason refuse the fetch, and the model is told both",
        async () => {
            session = await startNorthSession({ env: { NORTH_CONFIG_DIR: configDir } });
            const { north, server, submit } = session;
            server.enqueue({ toolCalls: [fetchCall("/secret")] }, { text: "Understood." });
            await submit("read it");
            await north.waitForText("Fetch this page?");
            await answerReview(north, { refuse: "read the local copy" });
            await north.waitForText("Understood.");
            expect(session.lastRequest()).toContain("the user denied this fetch");
            expect(session.lastRequest()).toContain("read the local copy");
            expect(webHits).toEqual([]);
        },
        TIMEOUT
    );
});
