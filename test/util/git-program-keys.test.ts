/**
 * The git config keys that make git run a program: trust lists them and the
 * sandbox strips them from repositories a command made.
 */
import { describe, expect, it } from "vitest";
import { isGitProgramKey } from "../../src/util/git-program-keys";

describe("isGitProgramKey", () => {
    it.each([
        ["core.fsmonitor", "./fsmonitor.sh"],
        ["core.pager", "sh x.sh"],
        ["diff.d.textconv", "./conv"],
        ["filter.lfs.process", "./p"],
        ["alias.st", "!sh x.sh"],
        ["submodule.lib.update", "!sh x.sh"],
        ["submodule.lib.update", "  !sh x.sh"],
        ["trailer.sign.command", "./sign"],
        ["browser.mine.cmd", "./open"],
        ["man.mine.cmd", "./man"],
        ["sendemail.sendmailcmd", "./send"],
        ["imap.tunnel", "./tunnel"],
    ])("%s = %s runs a program", (key, value) => {
        expect(isGitProgramKey(key, value)).toBe(true);
    });

    it.each([
        ["core.fsmonitor", "true"],
        ["alias.st", "status"],
        ["submodule.lib.update", "rebase"],
        ["submodule.lib.url", "../lib"],
        ["user.name", "me"],
    ])("%s = %s does not", (key, value) => {
        expect(isGitProgramKey(key, value)).toBe(false);
    });
});
