"""What the CLI tests share: a tiny scenario and running the command in this process."""

TINY = ('[sim]\nduration = 1\n[[nodes]]\nname = "a"\n[[nodes]]\nname = "b"\n'
        '[[links]]\na = "a"\nb = "b"\nrate = "1Mbps"\ndelay = "10ms"\n[[flows]]\nsrc = "a"\ndst = "b"\n')


def main(capsys, *argv):
    """Run `tcplab ARGV` in this process: (exit status, stdout, stderr)."""
    from tcplab import cli

    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(err: str) -> bool:
    return err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
