/**
 * highlight.js with the grammars North colours. Plain JavaScript on purpose:
 * highlight.js's type declarations say `/// <reference lib="dom" />`, which
 * would pull the DOM library into the whole program and retype Node's
 * streams; highlight-grammars.d.ts states the two calls North makes.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import lua from "highlight.js/lib/languages/lua";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import php from "highlight.js/lib/languages/php";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import scss from "highlight.js/lib/languages/scss";
import sql from "highlight.js/lib/languages/sql";
import swift from "highlight.js/lib/languages/swift";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const GRAMMARS = {
    bash,
    c,
    cpp,
    csharp,
    css,
    diff,
    dockerfile,
    go,
    ini,
    java,
    javascript,
    json,
    kotlin,
    lua,
    makefile,
    markdown,
    php,
    python,
    ruby,
    rust,
    scss,
    sql,
    swift,
    typescript,
    xml,
    yaml,
};

/** highlight.js's core with the grammars and `extraAliases` (language → names) registered. */
export function createGrammars(extraAliases) {
    for (const [name, grammar] of Object.entries(GRAMMARS)) hljs.registerLanguage(name, grammar);
    for (const [name, aliases] of Object.entries(extraAliases))
        hljs.registerAliases(aliases, { languageName: name });
    return hljs;
}
