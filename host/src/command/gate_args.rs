//! The gate's own arguments, written once in a key's `authorized_keys` line by whoever keeps
//! the queue host: the seat the key acts as, the checkout, and the seat's Gitea settings.
//! Nothing the remote side sends can change them.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct GateArgs {
    /// The seat every command through this key acts as (e.g. darkwing); never taken from the
    /// environment
    #[arg(long, value_name = "SEAT")]
    pub seat: String,
    /// The canonical checkout the commands run in; defaults to the working directory (for
    /// sshd, the account's home)
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The Gitea base URL review requests post to (MOSAIC_GITEA_URL for the command)
    #[arg(long, value_name = "URL")]
    pub gitea_url: Option<String>,
    /// The repository on Gitea, owner/name (MOSAIC_GITEA_REPO for the command)
    #[arg(long, value_name = "OWNER/NAME")]
    pub gitea_repo: Option<String>,
    /// The seat's own token file on this host, checked as docs/gitea.md says
    /// (MOSAIC_GITEA_CREDENTIAL_FILE for the command); the token never crosses the connection
    #[arg(long, value_name = "FILE")]
    pub gitea_credential_file: Option<PathBuf>,
}
