#ifndef EDGEAUTH_VERSION_H
#define EDGEAUTH_VERSION_H
/* The release, as --version prints it (and the metrics' build info). */
#define EDGEAUTH_VERSION "0.1.0"
#endif
