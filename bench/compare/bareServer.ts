// The ceiling of the stack: a bare node:http server answering one fixed JSON-RPC response of the
// size flashnode answers, in 1 process or a cluster of N (argv: port, processes, response file,
// and optionally µs of busy CPU per request: the batch ceiling, a server that does nothing but
// take as long as flashnode takes to answer, to show what the stack alone does to latency).
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const [portArg, processesArg, responseFile, workArg] = process.argv.slice(2);
const workNs = BigInt(Math.round(Number(workArg ?? "0") * 1000));
const processes = Number(processesArg ?? "1");
const body = readFileSync(responseFile!, "utf8");
const length = String(Buffer.byteLength(body));

if (processes > 1 && cluster.isPrimary) {
  for (let i = 0; i < processes; i++) cluster.fork();
} else {
  createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (workNs > 0n) {
        const until = process.hrtime.bigint() + workNs;
        while (process.hrtime.bigint() < until);
      }
      res.writeHead(200, { "content-type": "application/json", "content-length": length });
      res.end(body);
    });
  }).listen(Number(portArg), "127.0.0.1");
}
