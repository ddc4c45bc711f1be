package io.softcmi.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalNotFoundException;

/**
 * Who may use a node besides the user running {@code cmid} ({@code cmid --group NAME}): the
 * members of one OS group. With a group, the node directory and the shm directory become
 * {@code rwxr-x---}, the control socket and every segment file {@code rw-rw----}, all owned by
 * that group; without one, everything stays owner-only. The daemon still learns each process's
 * user from the kernel ({@code SO_PEERCRED}) and keeps reservations per user.
 */
final class NodeGroup {
    private NodeGroup() {
    }

    /**
     * @param anyPath a path on the file system the node uses
     * @param name the group name
     * @return the group
     * @throws IllegalArgumentException if there is no such group
     */
    static GroupPrincipal lookup(Path anyPath, String name) {
        try {
            return anyPath.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(name);
        } catch (UserPrincipalNotFoundException e) {
            throw new IllegalArgumentException("no such group: " + name);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot look up group " + name + ": " + e.getMessage());
        }
    }

    /**
     * Gives a directory or file to the node's group, or keeps it owner-only.
     *
     * @param path the directory or file
     * @param group the group, or null for owner-only
     * @param directory whether {@code path} is a directory
     * @throws IOException if ownership or mode cannot be set
     */
    static void apply(Path path, GroupPrincipal group, boolean directory) throws IOException {
        if (group == null) {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(directory ? "rwx------" : "rw-------"));
            return;
        }
        Files.getFileAttributeView(path, PosixFileAttributeView.class).setGroup(group);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(directory ? "rwxr-x---" : "rw-rw----"));
    }
}
