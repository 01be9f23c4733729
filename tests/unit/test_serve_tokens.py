"""Bearer tokens and the HTTP bind rules: private, 128-bit, constant-time, refused when unsafe."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from subterminator_tui.cli.main import build_parser, main
from subterminator_tui.cli.serve import http_options
from subterminator_tui.exit_codes import CONFIGURATION, SUCCESS
from subterminator_tui.serve.errors import ServeConfigurationError, ServeInputError
from subterminator_tui.serve.server.http import HttpOptions, is_loopback, parse_address
from subterminator_tui.serve.server.tokens import TokenFileVerifier, new_token, read_tokens


def test_a_new_token_is_128_bits_kept_hashed_in_a_private_file(tmp_path: Path) -> None:
    """The file is 0600 and holds no token in clear; the token maps to its principal."""
    path = tmp_path / "tokens.json"
    token = new_token(path, "alice")
    assert len(token) >= 22  # 16 bytes, URL-safe base64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert token not in path.read_text(encoding="utf-8")
    verifier = TokenFileVerifier(read_tokens(path))
    assert verifier.principal_of(token) == "alice"
    assert verifier.principal_of(token + "x") is None
    assert verifier.principal_of("") is None


def test_two_principals_get_their_own_tokens(tmp_path: Path) -> None:
    """Each token names only its own principal."""
    path = tmp_path / "tokens.json"
    alice, bob = new_token(path, "alice"), new_token(path, "bob")
    verifier = TokenFileVerifier(read_tokens(path))
    assert (verifier.principal_of(alice), verifier.principal_of(bob)) == ("alice", "bob")


def test_a_tokens_file_others_can_read_is_refused(tmp_path: Path) -> None:
    """Mode 0644 is a configuration error naming the fix."""
    path = tmp_path / "tokens.json"
    new_token(path, "alice")
    path.chmod(0o644)
    with pytest.raises(ServeConfigurationError, match="chmod 600"):
        read_tokens(path)


def test_a_principal_name_that_could_escape_its_folder_is_refused(tmp_path: Path) -> None:
    """Principals become folder names: '../x' never does."""
    with pytest.raises(ServeInputError, match="Invalid principal"):
        new_token(tmp_path / "tokens.json", "../x")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::"])
def test_no_auth_is_refused_off_loopback(host: str, tmp_path: Path) -> None:
    """--no-auth on a reachable address would hand the browser to the network."""
    with pytest.raises(ServeConfigurationError, match="only allowed on a loopback"):
        HttpOptions(host, 0, tmp_path / "none.json", no_auth=True).verifier()


def test_off_loopback_without_tokens_is_refused(tmp_path: Path) -> None:
    """A reachable address needs tokens."""
    with pytest.raises(ServeConfigurationError, match="No tokens"):
        HttpOptions("0.0.0.0", 0, tmp_path / "none.json").verifier()


def test_no_auth_on_loopback_is_allowed(tmp_path: Path) -> None:
    """The explicit local-only mode."""
    assert HttpOptions("127.0.0.1", 0, tmp_path / "none.json", no_auth=True).verifier() is None


def test_the_allowlists_name_the_bound_port_only() -> None:
    """Host and Origin lists are exact: the loopback names on the bound port, plus additions."""
    options = HttpOptions("127.0.0.1", 0, Path("t"), allowed_origins=("http://localhost:6274",))
    security = options.security(8765)
    assert "127.0.0.1:8765" in security.allowed_hosts
    assert not [h for h in security.allowed_hosts if h.endswith(":*")]
    assert "http://localhost:6274" in security.allowed_origins


def test_addresses() -> None:
    """HOST:PORT parsing and what counts as loopback."""
    assert parse_address("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_address("[::1]:9") == ("::1", 9)
    assert is_loopback("localhost") and is_loopback("::1") and not is_loopback("0.0.0.0")
    with pytest.raises(ServeConfigurationError):
        parse_address("8765")


def test_the_cli_refuses_unsafe_binds_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`serve --http 0.0.0.0:0 --no-auth` exits 2 and says why, before anything starts."""
    code = main(["serve", "--http", "0.0.0.0:0", "--no-auth", "--tokens", str(tmp_path / "t")])
    assert code == CONFIGURATION
    assert "loopback" in capsys.readouterr().err


def test_the_cli_prints_a_new_token(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`serve --new-token NAME` prints the token once and stores its hash."""
    path = tmp_path / "tokens.json"
    assert main(["serve", "--new-token", "carol", "--tokens", str(path)]) == SUCCESS
    token = capsys.readouterr().out.strip()
    assert TokenFileVerifier(read_tokens(path)).principal_of(token) == "carol"


def test_an_empty_new_token_name_is_refused_and_starts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--new-token ""` (an unset shell variable) is exit 2, never a stdio server."""
    code = main(["serve", "--new-token", "", "--tokens", str(tmp_path / "tokens.json")])
    assert code == CONFIGURATION
    assert "Invalid principal ''" in capsys.readouterr().err
    assert not (tmp_path / "tokens.json").exists()


def test_tokens_are_listed_and_revoked_without_editing_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--list-tokens names each principal; --revoke-token removes theirs, and a verifier that
    is already running refuses the token from its next check, without a restart."""
    path = tmp_path / "tokens.json"
    alice, bob = new_token(path, "alice"), new_token(path, "bob")
    running = TokenFileVerifier(read_tokens(path), path)
    assert running.principal_of(alice) == "alice"
    assert main(["serve", "--tokens", str(path), "--list-tokens"]) == SUCCESS
    listed = capsys.readouterr().out
    assert "alice\tsha256:" in listed and "bob\tsha256:" in listed and alice not in listed
    assert main(["serve", "--tokens", str(path), "--revoke-token", "alice"]) == SUCCESS
    assert running.principal_of(alice) is None
    assert running.principal_of(bob) == "bob"
    assert main(["serve", "--tokens", str(path), "--revoke-token", "alice"]) == CONFIGURATION


def test_listening_on_every_address_hints_at_allowed_host(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--http 0.0.0.0:PORT alone would answer every real client 421: it says what to add."""
    path = tmp_path / "tokens.json"
    new_token(path, "alice")
    args = build_parser().parse_args(["serve", "--http", "0.0.0.0:8765", "--tokens", str(path)])
    http_options(args, path)
    assert "--allowed-host" in capsys.readouterr().err
